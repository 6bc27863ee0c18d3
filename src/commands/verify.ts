import { resolve } from 'node:path';
import { loadKubeConfig } from '../cluster/kubeconfig.js';
import { UsageError } from '../errors.js';
import { watchSignals } from '../interrupt.js';
import { parseVersionFlag } from '../flags.js';
import type { KObject, SelectFn } from '../verify/evaluate.js';
import { parsePackageInstallRef, passed, verifyAll } from '../verify/index.js';
import { renderResultText } from '../verify/render.js';
import { defaultSelect, type VerifyOutcome } from '../verify/verifier.js';
import { parseCommand, requireFlag, type CliIO } from './io.js';
import { CLUSTER_VERDICT_FLAGS, clusterVerdictSettings, strings } from './options.js';

const USAGE = `Usage: devpkg verify --package-install NS/NAME --expect-version V [--bundle DIGEST] [--kubeconfig K]
                     [--settle S] [--timeout T] [--assert FILE] [--diagnostics DIR] [--json]

Watches the PackageInstall, its App and the Packages of its refName until the expected version
has won, and says precisely why not otherwise. A win is: the PackageInstall's observedGeneration
equals its generation, its one condition is ReconcileSucceeded, status.version and
status.lastAttemptedVersion are the expected version, the App of the same name succeeded too, and
(with --bundle) the App's fetch output names the bundle digest; held through the settle window.

  --package-install NS/NAME   the PackageInstall, e.g. tkg-system/antrea
  --expect-version V          the (dev) version that must win
  --bundle DIGEST             sha256:... or repo@sha256:... of the dev bundle
  --kubeconfig FILE           default: $KUBECONFIG or ~/.kube/config
  --settle DURATION           how long the win must hold (default 60s; 0 decides at once)
  --timeout DURATION          give up after (default 10m)
  --assert FILE               YAML list of assertions on rendered objects, checked after a win
  --diagnostics DIR           on failure, write the objects, events and logs there
                              (default: devpkg-diagnostics in the temp folder,
                              outside the work tree)
  --json                      print the result as JSON (PackageResult)
  -h, --help                  show this help

Verdicts: won, not-selected, reconcile-failed, downgrade-blocked, timed-out, lost, interrupted, error.
Exit codes: 0 won (and every assertion held), 1 any other verdict, 2 bad usage,
130/143 interrupted by SIGINT/SIGTERM (the result is still printed).
`;

export function digestOf(bundle: string | undefined): string | undefined {
  if (!bundle) return undefined;
  const m = /(sha256:[0-9a-f]{64})$/.exec(bundle.trim());
  if (!m) throw new UsageError(`--bundle: "${bundle}" is not sha256:<64 hex> or repo@sha256:<64 hex>`);
  return m[1];
}

/**
 * What `devpkg verify` heads its result with, pure: the package (the first label of the
 * PackageInstall's refName, else its name) and the released version, i.e. the version the
 * PackageInstall has in place when that is not the expected one, else the version kapp-controller
 * would select from the Packages without it.
 */
export function verifiedPackage(
  last: { pkgi?: KObject; packages: KObject[] },
  fallbackName: string,
  expected: string,
  select: SelectFn = defaultSelect,
): { name: string; refName?: string; releasedVersion?: string } {
  const refName = last.pkgi?.spec?.packageRef?.refName as string | undefined;
  const name = refName?.split('.')[0] || fallbackName;
  const inPlace = last.pkgi?.status?.version as string | undefined;
  let released = inPlace && inPlace !== expected ? inPlace : undefined;
  if (!released) {
    const others = last.packages.map((p) => String(p.spec?.version ?? '')).filter((v) => v && v !== expected);
    if (others.length) released = select(others, last.pkgi?.spec?.packageRef?.versionSelection).selected;
  }
  return { name, ...(refName ? { refName } : {}), ...(released ? { releasedVersion: released } : {}) };
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...strings('package-install', 'expect-version', 'bundle'), ...CLUSTER_VERDICT_FLAGS });
  if (!values) return 0;
  const target = parsePackageInstallRef(requireFlag(values['package-install'], '--package-install', 'verify'));
  const version = parseVersionFlag(requireFlag(values['expect-version'], '--expect-version', 'verify'), '--expect-version');
  const digest = digestOf(values.bundle);
  const { settleMs, timeoutMs, diagnosticsDir, assertions } = await clusterVerdictSettings(values, io);
  const kc = await loadKubeConfig(values.kubeconfig ? resolve(io.cwd, values.kubeconfig) : undefined);

  let outcome: VerifyOutcome | undefined;
  // From here a SIGINT/SIGTERM stops the wait and still prints the result (exit 130/143).
  const interruption = watchSignals({ log: (m) => io.stderr(`${m}\n`) });
  const [result] = await verifyAll(
    [
      {
        base: {
          name: target.name,
          version,
          refName: '',
          targetRefName: '',
          devVersion: version,
          ...(values.bundle?.includes('@') ? { bundle: values.bundle } : {}),
          mode: 'cluster',
        },
        target,
        expect: { version, ...(digest ? { digest } : {}) },
      },
    ],
    {
      kc,
      settleMs,
      timeoutMs,
      assertions,
      diagnosticsDir,
      log: values.json ? undefined : (m) => io.stderr(`${m}\n`),
      onOutcome: (_req, o) => (outcome = o),
      signal: interruption.signal,
    },
  ).finally(() => interruption.dispose());
  const r = result!;
  if (outcome) {
    const head = verifiedPackage(outcome.last, target.name, version);
    r.name = head.name;
    r.version = head.releasedVersion ?? '';
    if (head.releasedVersion) r.releasedVersion = head.releasedVersion;
  }
  io.stdout(values.json ? `${JSON.stringify(r, null, 2)}\n` : renderResultText(r));
  return interruption.exitCode() ?? (passed(r) ? 0 : 1);
}

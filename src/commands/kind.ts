/**
 * `devpkg kind`: the action's kind mode from a terminal, in process (the same code path), with
 * the post step's cleanup run at exit, on success, failure, SIGINT or SIGTERM (`--keep` skips it).
 * Flags are the action's inputs by the same names, read by the same parseInputs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RecordingHost, type ActionHost } from '../action/host.js';
import type { GithubContext } from '../action/context.js';
import { CLEANUP_STATE, CleanupList, describe as describeItem, runCleanup } from '../cleanup.js';
import { handCommand } from '../cluster/cleanup.js';
import { currentOwner, writeOwnerFile } from '../cluster/sweep.js';
import { DevpkgError, UsageError } from '../errors.js';
import { watchSignals } from '../interrupt.js';
import { parsePackageList } from '../flags.js';
import { parseInputs } from '../inputs.js';
import { execTool, type ExecFn } from '../tools/exec.js';
import type { InstallPolicy } from '../tools/toolcache.js';
import { renderResultText } from '../verify/render.js';
import type { PackageResult } from '../results.js';
import { parseCommand, type CliIO } from './io.js';
import { booleans, LAYOUT_WORDS, PUSH_FLAGS, SELECTION_FLAGS, strings, VERDICT_FLAGS } from './options.js';

const USAGE = `Usage: devpkg kind --repo DIR (--base REF [--head REF] | --packages NAME/VERSION,... | --all)
                   [--packages-dir D] [--ref-name MAP] [--push-command CMD] [--lock-images] [--dev-version V]
                   [--kind-version V] [--kind-node-image IMAGE] [--kind-config FILE] [--registry-image IMAGE]
                   [--kapp-controller-version V | --kapp-controller-manifest FILE|URL] [--kapp-controller-sha256 HEX]
                   [--settle 60s] [--timeout 10m] [--assert FILE] [--results-dir DIR] [--keep] [--no-install] [--json]

The action's kind mode, here: a throwaway kind cluster with a local registry and kapp-controller,
the released version of each changed package installed the way the addons manager would, then
its dev Package, verified. Writes results.json, report.md and diagnostics to --results-dir and
deletes the cluster and the registry container at the end, unless --keep. Ctrl-C (or SIGTERM)
stops the run, writes an interrupted result per package, then deletes them (exit 130/143); a
second one deletes them and exits at once.
Everything is checked before anything starts: the flags, the packages (as devpkg plan plans
them), the files the flags name, then Docker, kind and imgpkg, all that is missing named at once.
kind and imgpkg (kbld with --lock-images) are installed when missing (checksum-checked, into ~/.cache/devpkg).

  --repo DIR                    the packages repository (default: .)
  --base REF                    the diff that marks changed versions: merge-base(REF, head)..head
  --head REF                    head of the diff (default: HEAD)
  --packages LIST               NAME/VERSION, comma- or newline-separated, instead of the diff
  --all                         every version folder instead of the diff
  --packages-dir D              default addons/packages
  --layout L                    ${LAYOUT_WORDS}
  --released-version V          kctrl layout: the released version (default: highest matching git tag, else 0.0.0)
  --ref-name FROM=TO            map the repository refName to the cluster's (or a bare TO)
  --push-command CMD            the repository's own push target (bash -c at the repository root), DEVPKG_* in its env
  --push-timeout DURATION       stop the push command (and what it started) after this long (default 10m)
  --lock-images                 refresh .imgpkg/images.yml with kbld first
  --dev-version V               use this dev version instead of planning one
  --kind-version V              kind release (default v0.33.0: the one on PATH if it is that version, else downloaded, sha256-checked, cached)
  --kind-sha256 HEX             sha256 of that kind binary for this platform, instead of the release's .sha256sum
  --kind-node-image IMAGE       node image (default: kind v0.33.0's, pinned by digest)
  --kind-config FILE            a kind config, merged with kind's local-registry settings
  --registry-image IMAGE        the local registry's image (default: registry:3 pinned by digest)
  --kapp-controller-version V   kapp-controller release (default v0.51.0)
  --kapp-controller-manifest F  its release manifest as a file or URL instead (mirrors, air-gapped)
  --kapp-controller-sha256 HEX  sha256 of that manifest (needed before v0.45.0)
  --settle DURATION             how long the win must hold (default 60s)
  --timeout DURATION            give up after (default 10m)
  --assert FILE                 YAML list of assertions checked after a win
  --results-dir DIR             where results.json, report.md, diagnostics go (default ./devpkg-results)
  --keep                        leave the cluster and registry running (prints how to delete them)
  --imgpkg-version V            imgpkg release to install when none is on PATH (default v0.41.1;
                                pinned: v0.41.1, v0.48.2); another version needs --imgpkg-sha256
  --imgpkg-sha256 HEX           sha256 of that release's binary for this platform (imgpkg-linux-amd64, ...)
  --kbld-version V              kbld release for --lock-images (default v0.42.0, pinned); another needs --kbld-sha256
  --kbld-sha256 HEX             sha256 of that kbld release's binary for this platform
  --tool-checksums FILE         "<sha256>  <file>" lines (e.g. a release's checksums.txt) with the sums of the
                                versions given (imgpkg-linux-amd64, kind-linux-amd64, ...), instead of each --*-sha256
  --no-install                  refuse instead of installing a missing kind, imgpkg or kbld
  --json                        print the results as JSON (a list of PackageResult)
  -h, --help                    show this help

Flags not given are read from DEVPKG_* variables, then devpkg.yaml (devpkg config shows them):
--kind-node-image, --kind-config, --registry-image and --kapp-controller-manifest from
$DEVPKG_KIND_NODE_IMAGE, $DEVPKG_KIND_CONFIG, $DEVPKG_KIND_REGISTRY_IMAGE and
$DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST (a machine's mirrors; the kind test harness sets them).

Exit codes: 0 every dev version won, 1 one did not (or setup failed: an error result each), 2 bad usage.
`;

/** Flags that are action inputs of the same name (string-valued). */
const INPUT_FLAGS = [
  'base-ref', 'head-ref', 'packages', 'packages-dir', 'layout', 'released-version', 'ref-name', 'push-command', 'push-timeout', 'dev-version', 'kind-version', 'kind-sha256', 'kind-node-image',
  'kind-config', 'registry-image', 'kapp-controller-version', 'kapp-controller-manifest', 'kapp-controller-sha256', 'settle', 'timeout',
  'imgpkg-version', 'imgpkg-sha256', 'kbld-version', 'kbld-sha256', 'tool-checksums',
] as const;

/** A host for the terminal: logs to stderr, outputs and state kept in memory. */
class TerminalHost extends RecordingHost {
  constructor(private readonly io: CliIO, private readonly quiet: boolean) {
    super();
  }
  override info(m: string): void {
    super.info(m);
    if (!this.quiet) this.io.stderr(`${m}\n`);
  }
  override warning(m: string, where?: Parameters<ActionHost['warning']>[1]): void {
    super.warning(m, where);
    this.io.stderr(`warning: ${where?.file ? `${where.file}${where.line ? `:${where.line}` : ''}: ` : ''}${m}\n`);
  }
  override error(m: string, where?: Parameters<ActionHost['error']>[1]): void {
    super.error(m, where);
    this.io.stderr(`error: ${where?.file ? `${where.file}${where.line ? `:${where.line}` : ''}: ` : ''}${m}\n`);
  }
  override async group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    if (!this.quiet) this.io.stderr(`== ${name}\n`);
    return fn();
  }
}

export interface KindCommandDeps {
  exec?: ExecFn;
  /** Where missing tools come from (tests: a local release stand-in); --no-install sets refuse. */
  install?: InstallPolicy;
  /** Registers a signal handler; returns its removal (tests pass their own). */
  onSignal?: (signal: 'SIGINT' | 'SIGTERM', handler: () => void) => () => void;
  /** Ends the process after an interrupted run's cleanup (tests pass their own). */
  exit?: (code: number) => void;
}

export async function run(argv: string[], io: CliIO, deps: KindCommandDeps = {}): Promise<number> {
  const values = parseCommand(argv, io, USAGE, {
    ...SELECTION_FLAGS,
    ...strings('assert', 'results-dir'),
    ...booleans('keep', 'no-install'),
    ...PUSH_FLAGS,
    ...VERDICT_FLAGS,
    // The inputs' own names, except base-ref and head-ref (--base and --head here).
    ...strings(...INPUT_FLAGS.filter((f) => f !== 'base-ref' && f !== 'head-ref')),
  });
  if (!values) return 0;
  const v = values as Record<string, string | boolean | undefined>;
  const repo = resolve(io.cwd, (v.repo as string | undefined) ?? '.');
  const record: Record<string, string> = { mode: 'kind', comment: 'false', 'working-directory': '.' };
  for (const f of INPUT_FLAGS) if (typeof v[f] === 'string') record[f] = v[f] as string;
  // Files named on the command line are relative to where it runs (the action's, to working-directory).
  if (record['kind-config']) record['kind-config'] = resolve(io.cwd, record['kind-config']);
  if (record['tool-checksums']) record['tool-checksums'] = resolve(io.cwd, record['tool-checksums']);
  const manifest = record['kapp-controller-manifest'];
  if (manifest && !/^https?:\/\//i.test(manifest)) record['kapp-controller-manifest'] = resolve(io.cwd, manifest);
  if (typeof v.base === 'string') record['base-ref'] = v.base;
  if (typeof v.head === 'string') record['head-ref'] = v.head;
  if (v.all) record.all = 'true';
  if (v['lock-images']) record['lock-images'] = 'true';
  if (typeof v.assert === 'string') {
    const { readFile } = await import('node:fs/promises');
    const file = resolve(io.cwd, v.assert);
    record.assert = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`--assert: cannot read ${file}: ${err.code ?? err.message}; give a YAML file with a list of assertions`);
    });
  }
  // Checked here too, to name the flag (parseInputs names the input).
  if (record.packages !== undefined) parsePackageList(record.packages, '--packages');
  if (!record.packages && !record['base-ref'] && !v.all) {
    throw new DevpkgError('give --base REF (the diff to test), --packages NAME/VERSION,... or --all', { exitCode: 2 });
  }
  const inputs = parseInputs({
    getInput: (n) => record[n] ?? '',
    getBooleanInput: (n) => record[n] === 'true',
    getMultilineInput: (n) => (record[n] ?? '').split('\n'),
  });
  const resultsDir = resolve(io.cwd, (v['results-dir'] as string | undefined) ?? 'devpkg-results');
  const host = new TerminalHost(io, Boolean(v.json));
  const github: GithubContext = {
    eventName: 'cli',
    event: {},
    sha: '',
    ref: '',
    owner: 'local',
    repo: 'devpkg',
    runId: Date.now().toString(36),
    runNumber: 0,
    runAttempt: 1,
    serverUrl: 'https://github.com',
    apiUrl: 'https://api.github.com',
    workspace: repo,
    local: true,
  };
  const exec = deps.exec ?? execTool;
  const cleanUp = async () => {
    const items = CleanupList.fromState(host.getState(CLEANUP_STATE));
    host.saveState(CLEANUP_STATE, '[]');
    if (v.keep) {
      // --keep keeps the cluster and its registry; the temp folders go (`kind get kubeconfig` gives the kubeconfig).
      // In the order they are deleted: the cluster and the registry before their network.
      const rank = (i: (typeof items)[number]) => ['kind-cluster', 'docker-container', 'docker-network'].indexOf(i.kind) >>> 0;
      const kept = items.filter((i) => i.kind !== 'temp-dir').sort((a, b) => rank(a) - rank(b));
      await runCleanup(items.filter((i) => i.kind === 'temp-dir'), exec, { info: (m) => host.info(m), warning: (m) => host.warning(m) });
      if (kept.length) io.stderr(`--keep: left ${kept.map(describeItem).join(', ')}; delete them with: ${keepHint(kept)}\n`);
      return;
    }
    await runCleanup(items, exec, { info: (m) => host.info(m), warning: (m) => host.warning(m) });
  };
  let scratch: string | undefined;
  const removeScratch = async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  };
  // Ctrl-C or a kill: the first stops the run where it is (a wait ends at once), the `interrupted`
  // results are written and what was created is removed, watches closed first; a second signal
  // removes what was created and exits at once, without results.
  const onSignal = deps.onSignal ?? ((s, h) => (process.on(s, h), () => process.removeListener(s, h)));
  const exit = deps.exit ?? ((code: number) => process.exit(code));
  const removers = new Map<() => void, () => void>();
  const interruption = watchSignals({
    source: {
      on: (s, h) => void removers.set(h, onSignal(s, h)),
      off: (_s, h) => removers.get(h)?.(),
      exit: (code) => void cleanUp().then(removeScratch).finally(() => exit(code)),
    },
    log: (m) => io.stderr(`\n${m}\n`),
  });
  let failure: unknown;
  try {
    const { run: runKind } = await import('../modes/kind.js');
    // Diagnostics are written under RUNNER_TEMP and copied into the results folder.
    // This process owns what the run creates (a later run's start removes it if this one is killed);
    // --keep marks it as the user's.
    const owner = { ...(await currentOwner({ local: true })), ...(v.keep ? { keep: true } : {}) };
    scratch = await mkdtemp(join(tmpdir(), 'devpkg-kind-cli-'));
    await writeOwnerFile(scratch, owner);
    const install: InstallPolicy = { ...deps.install, ...(v['no-install'] ? { refuse: true } : {}) };
    await runKind({ inputs, github, host, exec, env: { ...io.env, RUNNER_TEMP: scratch }, resultsDir, install, signal: interruption.signal, owner });
  } catch (err) {
    failure = err;
  } finally {
    await cleanUp();
    await removeScratch();
    interruption.dispose();
  }
  const results = JSON.parse(host.outputs.results ?? '[]') as PackageResult[];
  io.stdout(v.json ? `${JSON.stringify(results, null, 2)}\n` : results.map(renderResultText).join(''));
  if (host.outputs['results-dir']) io.stderr(`results in ${host.outputs['results-dir']}\n`);
  if (failure && results.length === 0 && !interruption.received()) throw failure;
  return interruption.exitCode() ?? (failure ? 1 : 0);
}

function keepHint(items: ReturnType<typeof CleanupList.fromState>): string {
  return items.map((i) => handCommand(i) ?? describeItem(i)).join('; ');
}

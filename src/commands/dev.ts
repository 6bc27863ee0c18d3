import { tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { bundleSource } from '../layouts/index.js';
import { execTool } from '../tools/exec.js';
import { ClusterClient } from '../cluster/client.js';
import { runDevPipeline } from '../cluster/dev.js';
import { runHolder } from '../cluster/runlease.js';
import { loadKubeConfig } from '../cluster/kubeconfig.js';
import { UsageError } from '../errors.js';
import { watchSignals } from '../interrupt.js';
import { openVersionFolder } from './scope.js';
import { parsePushTimeout, parseRegistry, parseVersionFlag } from '../flags.js';
import { defaultOf } from '../config/schema.js';
import { parseRefNameMap } from '../packages/refname.js';
import { REGISTRY_HOSTING, resolvePullRegistry } from '../cluster/registry-hosting.js';
import { Docker } from '../tools/docker.js';
import { parsePackageInstallRef, passed, verifyAll } from '../verify/index.js';
import { renderResultText } from '../verify/render.js';
import { checkNeeds } from '../tools/needs.js';
import { carvelNeed, ensureCarvelTool } from '../tools/carvel.js';
import { parseCommand, requireFlag, type CliIO } from './io.js';
import { booleans, CLUSTER_VERDICT_FLAGS, clusterVerdictSettings, DEV_PACKAGE_FLAGS, IMGPKG_FLAGS, KBLD_FLAGS, PUSH_FLAGS, strings, toolPinsFlags } from './options.js';

const USAGE = `Usage: devpkg dev --package <version folder> --registry HOST[:PORT]/PATH [--cluster-registry HOST[:PORT][/PATH]]
                  [--kubeconfig K] [--ref-name FROM=TO] [--package-install NS/NAME] [--settle S] [--timeout T] [--no-install] [--json]

Iterate on a running cluster in one step: push the version folder's bundle, derive a dev
Package whose version outranks every version in play (earlier dev versions included), apply it
(server-side apply, field manager devpkg) next to the PackageInstall(s) of its refName, and
verify that kapp-controller installs it. Prints the verdict.

  --package DIR              a version folder, e.g. addons/packages/antrea/1.5.3 (holds package.yaml, bundle/)
  --registry REPO            where to push, e.g. localhost:5001/devpkg (<package>-bundle is appended)
  --cluster-registry ADDR    where the cluster pulls the same bundle from, when not from --registry:
                             HOST[:PORT] (same path and digest) or HOST[:PORT]/PATH. With kind's local
                             registry: push to localhost:5001, pull from the registry container's IP on
                             the kind network, e.g. 172.18.0.3:5000 (localhost in a pod is the pod).
                             Not given with a localhost --registry: read from the cluster's
                             local-registry-hosting ConfigMap and the registry container on the docker
                             network of the cluster's nodes
  --kubeconfig FILE          default: $KUBECONFIG or ~/.kube/config
  --ref-name FROM=TO         map the repository refName to the cluster's (or a bare TO)
  --package-install NS/NAME  the PackageInstall to move (default: every one of the refName)
  --dev-version V            use this dev version instead of planning one
  --derive-from repo|cluster derive from the package.yaml (default) or the cluster's Package in place
  --push-command CMD         the repository's own push target (bash -c at the repository root), DEVPKG_* in its env
  --push-timeout DURATION    stop the push command (and what it started) after this long (default 10m)
  --lock-images              refresh .imgpkg/images.yml with kbld first
  --plain-http               use plain HTTP for a registry that is not loopback/RFC1918
  --settle DURATION          how long the win must hold (default 60s)
  --timeout DURATION         give up after (default 10m)
  --assert FILE              YAML list of assertions checked after a win
  --diagnostics DIR          on failure, objects, events and logs go here (default: devpkg-diagnostics
                             in the temp folder, outside the work tree)
  --no-install               refuse instead of installing a missing imgpkg (or kbld) (checksum-checked, into ~/.cache/devpkg)
  --imgpkg-version V         imgpkg release to install when none is on PATH (default v0.41.1;
                             pinned: v0.41.1, v0.48.2); another version needs --imgpkg-sha256
  --imgpkg-sha256 SUM        sha256 of that release's binary for this platform (imgpkg-linux-amd64, ...)
  --kbld-version V           kbld release for --lock-images (default v0.42.0, pinned); another needs --kbld-sha256
  --kbld-sha256 SUM          sha256 of that kbld release's binary for this platform
  --tool-checksums FILE      "<sha256>  <file>" lines (e.g. a release's checksums.txt) with the
                             sums of the versions given, instead of each --*-sha256
  --json                     print the results as JSON (a list of PackageResult)
  -h, --help                 show this help

Registry credentials, when needed: DEVPKG_REGISTRY_USERNAME and DEVPKG_REGISTRY_PASSWORD.
Exit codes: 0 the dev version won everywhere, 1 it did not, 2 bad usage.
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, {
    ...strings('package', 'registry', 'cluster-registry', 'package-install', 'derive-from'),
    ...booleans('plain-http', 'no-install'),
    ...DEV_PACKAGE_FLAGS,
    ...PUSH_FLAGS,
    ...CLUSTER_VERDICT_FLAGS,
    ...IMGPKG_FLAGS,
    ...KBLD_FLAGS,
  });
  if (!values) return 0;
  const folder = resolve(io.cwd, requireFlag(values.package, '--package', 'dev'));
  const registry = parseRegistry(requireFlag(values.registry, '--registry', 'dev'), '--registry');
  const clusterRegistry =
    values['cluster-registry'] === undefined ? undefined : parseRegistry(values['cluster-registry'], '--cluster-registry', '172.18.0.3:5000');
  const deriveFrom = values['derive-from'] ?? 'repo';
  if (deriveFrom !== 'repo' && deriveFrom !== 'cluster') throw new UsageError(`--derive-from: "${deriveFrom}" is not repo or cluster`);
  const { settleMs, timeoutMs, diagnosticsDir, assertions } = await clusterVerdictSettings(values, io);
  const pushTimeoutMs = parsePushTimeout(values['push-timeout'] ?? defaultOf('push-timeout'), '--push-timeout');
  const devVersion = values['dev-version'] === undefined ? undefined : parseVersionFlag(values['dev-version'], '--dev-version');
  const refNames = parseRefNameMap(values['ref-name']);
  const named = values['package-install'] ? parsePackageInstallRef(values['package-install']) : undefined;
  const log = values.json ? () => undefined : (m: string) => io.stderr(`${m}\n`);
  const tools = await toolPinsFlags(values, ['imgpkg', 'kbld'], io);
  const install = { refuse: !!values['no-install'] };
  // The releases asked for, resolved now: a version without its sha256 is refused before any work.
  const toolNeeds = [
    ...(values['push-command'] ? [] : [carvelNeed('imgpkg', { pin: tools.imgpkg, install, log })]),
    ...(values['lock-images'] ? [carvelNeed('kbld', { pin: tools.kbld, install, log })] : []),
  ];

  // A version folder is <root>/<name>/<version>: loaded with the packages dir being its grandparent.
  const { root, loaded } = await openVersionFolder(folder, '--package');
  const kc = await loadKubeConfig(values.kubeconfig ? resolve(io.cwd, values.kubeconfig) : undefined);
  // The tools last, before the cluster is touched: imgpkg installed (pinned) when missing, unless refused.
  if (toolNeeds.length) await checkNeeds('dev', toolNeeds, install, log);
  // From the tool cache onto PATH too, where the push looks for them.
  if (!values['push-command']) await ensureCarvelTool('imgpkg', { pin: tools.imgpkg, install, log });
  if (values['lock-images']) await ensureCarvelTool('kbld', { pin: tools.kbld, install, log });
  const client = await ClusterClient.create(kc);
  // Pushing to localhost without --cluster-registry: the cluster's local registry says where it
  // pulls from (kind's local-registry-hosting ConfigMap, the registry container on the network of the cluster's nodes).
  const pull = await resolvePullRegistry(registry, clusterRegistry, {
    readHosting: () => client.readConfigMapKey(REGISTRY_HOSTING.namespace, REGISTRY_HOSTING.name, REGISTRY_HOSTING.key),
    docker: () => Docker.create(),
    nodes: () => client.nodeNames(),
    names: { push: '--registry', pull: '--cluster-registry' },
    log,
  });
  // Said with --json too: a localhost pull address is the usual reason a fetch fails.
  if (pull.warning) io.stderr(`warning: ${pull.warning}\n`);
  const user = io.env.DEVPKG_REGISTRY_USERNAME;
  const password = io.env.DEVPKG_REGISTRY_PASSWORD;

  // A SIGINT/SIGTERM from here on is recorded; the wait after the apply stops at once on it and
  // the result still says what was applied (exit 130/143).
  const interruption = watchSignals({ log: (m) => io.stderr(`${m}\n`) });
  // What the version folder's layout pushes: its bundle/ on disk, or the Package's own bundle used
  // as it is (a working tree's folder is pushed where it is: nothing is written under tmp).
  const bundle = await bundleSource(loaded, { root, exec: execTool, tmp: tmpdir(), log });
  const dev = await runDevPipeline({
    client,
    root,
    loaded,
    bundle,
    packageCount: 1,
    refNames,
    packageInstall: named,
    registry,
    clusterRegistry: pull.clusterRegistry,
    credentials: user && password ? { username: user, password } : undefined,
    pushCommand: values['push-command'],
    pushTimeoutMs,
    signal: interruption.signal,
    lockImages: values['lock-images'],
    plainHttp: values['plain-http'],
    seq: { timestamp: new Date() },
    devVersion,
    deriveFrom,
    mode: 'cluster',
    log,
    // The Lease covers the push and the whole wait.
    runLease: { holder: runHolder(io.env), seconds: (pushTimeoutMs + settleMs + timeoutMs) / 1000 },
  }).catch((err: unknown) => {
    interruption.dispose();
    throw err;
  });
  const results = await verifyAll(dev.requests, {
    kc,
    settleMs,
    timeoutMs,
    assertions,
    diagnosticsDir,
    log,
    signal: interruption.signal,
  }).finally(async () => {
    interruption.dispose();
    await dev.release();
  });
  io.stdout(values.json ? `${JSON.stringify(results, null, 2)}\n` : results.map(renderResultText).join(''));
  return interruption.exitCode() ?? (results.every(passed) ? 0 : 1);
}

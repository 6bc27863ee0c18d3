import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { resolve } from 'node:path';
import { cleanupBootstrap, cleanupInterrupted, fileCleanupList, flush, readState, stateFile } from '../bootstrap/cleanup.js';
import { checkHost, hostRefusal, readHostFacts } from '../bootstrap/host.js';
import { bootstrapFolders, CLUSTER_CONFIG_PLACEHOLDER, planBootstrapDev, runBootstrap } from '../bootstrap/run.js';
import { findOnPath } from '../tools/carvel.js';
import { InterruptedError, UsageError } from '../errors.js';
import { watchSignals, type SignalSource } from '../interrupt.js';
import { openVersionFolder } from './scope.js';
import { parseRegistry, parseVersionFlag, parseWaits } from '../flags.js';
import { parseRefNameMap, targetRefName } from '../packages/refname.js';
import { parseImageRepository } from '../providers/image-repository.js';
import { tanzuPaths } from '../providers/paths.js';
import { requireManagementCluster } from '../providers/tanzu-cli.js';
import { Tanzu } from '../tools/tanzu.js';
import { listSome } from '../providers/validate.js';
import { execTool } from '../tools/exec.js';
import { ensureYtt } from '../tools/install.js';
import { checkPin, hostPlatform } from '../tools/releases.js';
import type { InstallPolicy } from '../tools/toolcache.js';
import type { PackageResult } from '../results.js';
import { passed } from '../verify/index.js';
import { renderResultText } from '../verify/render.js';
import { parseCommand, parseDuration, requireFlag, type CliIO } from './io.js';
import { assertionsFlag, booleans, DEV_PACKAGE_FLAGS, IMGPKG_FLAGS, strings, toolPinsFlags, VERDICT_FLAGS, YTT_FLAGS } from './options.js';

const USAGE = `Usage: devpkg bootstrap --package <version folder> (--image REPO@sha256:... | --registry REPO)
                        --cluster-config FILE [--ref-name FROM=TO] [--addon-type CATEGORY/NAME]
                        [--tanzu-dir DIR] [--tanzu PATH] [--tkg-custom-image-repository REPO]
                        [--prepare-only] [--keep]
       devpkg bootstrap --cleanup [--tanzu-dir DIR] [--tanzu PATH]

Creates a Tanzu management cluster on docker (the tanzu CLI makes a kind bootstrap cluster and a
CAPD management cluster) with the dev Package injected so that all three bootstrap phases keep
it, and proves that kapp-controller runs the dev version once phase 3 is over:

  phase 1  the vendored copy of the package's bundle/config in
           providers/ytt/vendir/<category>/_ytt_lib/... is replaced with the edited one
  phase 2+3 providers/ytt/04_user_customizations/<name>_dev_package.yaml: a ClusterResourceSet
           and Secret that put the dev Package (a version above the released one) into the cluster

Every file devpkg changes in the providers folder is backed up first and restored on cleanup.
Before creating anything, \`tanzu management-cluster create --dry-run\` (SUPPRESS_PROVIDERS_UPDATE=1)
must render our ClusterResourceSet and Secret and the edited manifests. With no tanzu CLI at hand
(no --tanzu, none on PATH), --prepare-only renders the providers with ytt the way the CLI does.
ytt must be on PATH: without it devpkg stops before changing anything.

  --package DIR            a version folder, e.g. addons/packages/antrea/1.5.3
  --image REF              the pushed bundle by digest (imgpkg push --lock-output gives it)
  --registry REPO          push the bundle here instead (<package>-bundle is appended)
  --ref-name FROM=TO       map the repository refName to the cluster's (or a bare TO),
                           e.g. antrea.tanzu.vmware.com
  --addon-type CAT/NAME    the addon's category and name (default from the package, e.g. cni/antrea)
  --tanzu-dir DIR          the tanzu config folder (default ~/.config/tanzu; must end in .config/tanzu)
  --cluster-config FILE    management cluster config (CLUSTER_NAME, ...); also used to populate
                           an empty providers folder
  --tanzu PATH             the tanzu CLI (default: tanzu on PATH)
  --skip-host-check        create even where the host check (cgroup v1, 4 CPUs, 6 GiB, docker) refuses
  --tkg-custom-image-repository REPO
                           TKG_CUSTOM_IMAGE_REPOSITORY: the mirror (HOST[:PORT]/PATH) of the BOM's
                           images (the TKG 1.x BOMs name projects.registry.vmware.com, gone since
                           2024); written into a copy of the cluster config, checked in the dry-run
  --tkg-custom-image-repository-skip-tls-verify
                           TKG_CUSTOM_IMAGE_REPOSITORY_SKIP_TLS_VERIFY=true for that mirror
  --tkg-custom-image-repository-ca-certificate FILE
                           TKG_CUSTOM_IMAGE_REPOSITORY_CA_CERTIFICATE from this PEM file
  --dev-version V          use this dev version instead of planning one
  --prepare-only           write the files, check them with a dry-run, print the create command; nothing else
  --keep                   keep the cluster and the providers changes (undo later with --cleanup)
  --cleanup                undo what an earlier run left: delete the cluster, restore the providers folder
  --assert FILE            YAML list of checks on the management cluster's objects after a win
  --settle DURATION        how long the win must hold after phase 3 (default 60s)
  --timeout DURATION       wait this long for phase 3, and again for the verdict (default 10m)
  --bootstrap-timeout D    limit for tanzu management-cluster create (default 45m)
  --work-dir DIR           logs, dry-run render, kubeconfig (default ./devpkg-bootstrap)
  --no-install             refuse instead of installing a missing ytt (or, with --registry, imgpkg)
                           (checksum-checked, into ~/.cache/devpkg)
  --ytt-version V          ytt release to install when none is on PATH (default v0.44.3, pinned);
                           another version needs --ytt-sha256
  --ytt-sha256 SUM         sha256 of that release's binary for this platform (ytt-linux-amd64, ...)
  --imgpkg-version V       imgpkg release for the --registry push (default v0.41.1; pinned: v0.41.1,
                           v0.48.2); another version needs --imgpkg-sha256
  --imgpkg-sha256 SUM      sha256 of that imgpkg release's binary for this platform
  --tool-checksums FILE    "<sha256>  <file>" lines (e.g. a release's checksums.txt) with the
                           sums of the versions given, instead of each --*-sha256
  --json                   print the result as JSON on stdout (progress stays on stderr)
  -h, --help               show this help

Ctrl-C (SIGINT) or SIGTERM during the push, the create or the wait: the result is interrupted (the
push command is stopped with its process group), the providers folder is restored, and the
clusters are left with the commands that delete them (exit 130/143).

Exit codes: 0 the dev version won after phase 3 (or prepare-only succeeded), 1 it did not, 2 bad usage.
`;

export interface BootstrapCommandDeps {
  /** Where SIGINT/SIGTERM come from (tests pass an EventEmitter); default the process. */
  signals?: SignalSource;
}

export async function run(argv: string[], io: CliIO, deps: BootstrapCommandDeps = {}): Promise<number> {
  const values = parseCommand(argv, io, USAGE, {
    ...strings('package', 'image', 'registry', 'addon-type', 'tanzu-dir', 'cluster-config', 'tanzu', 'bootstrap-timeout', 'work-dir', 'assert'),
    ...strings('tkg-custom-image-repository', 'tkg-custom-image-repository-ca-certificate'),
    ...booleans('skip-host-check', 'tkg-custom-image-repository-skip-tls-verify', 'prepare-only', 'keep', 'cleanup', 'no-install'),
    ...DEV_PACKAGE_FLAGS,
    ...VERDICT_FLAGS,
    ...YTT_FLAGS,
    ...IMGPKG_FLAGS,
  });
  if (!values) return 0;
  // Progress always goes to stderr (a bootstrap takes many minutes); --json only changes stdout.
  const log = (m: string) => io.stderr(`${m}\n`);
  const logger = { info: log, warning: (m: string) => io.stderr(`warning: ${m}\n`) };
  const paths = tanzuPaths(values['tanzu-dir'], { ...io.env, HOME: io.env.HOME || os.homedir() }, io.cwd);
  const tanzuPath = values.tanzu ? resolve(io.cwd, values.tanzu) : 'tanzu';
  const state = stateFile(paths.tanzuDir);

  if (values.cleanup) {
    const items = await readState(state);
    if (items.length === 0) {
      io.stdout(`nothing to clean up (no ${state})\n`);
      return 0;
    }
    await cleanupBootstrap(items, execTool, paths.home, logger, state);
    io.stdout(`cleaned up ${items.length} item(s) recorded in ${state}\n`);
    return 0;
  }

  const folder = resolve(io.cwd, requireFlag(values.package, '--package', 'bootstrap'));
  if (!values.image && !values.registry) throw new UsageError('give --image REPO@sha256:... or --registry REPO (see devpkg bootstrap --help)');
  if (!values['prepare-only']) requireFlag(values['cluster-config'], '--cluster-config', 'bootstrap');
  // No tanzu CLI at hand: a prepare-only run still checks the providers, rendering them with ytt
  // as the CLI would (docs/providers-render.md).
  const dryRunWithYtt = !values.tanzu && !(await findOnPath('tanzu', io.env));
  if (dryRunWithYtt && !values['prepare-only']) throw new UsageError('creating a management cluster needs the tanzu CLI: give --tanzu PATH or put tanzu on PATH, or use --prepare-only');
  const caFile = values['tkg-custom-image-repository-ca-certificate'];
  let caText = '';
  if (caFile) {
    try {
      caText = await readFile(resolve(io.cwd, caFile), 'utf8');
    } catch {
      throw new UsageError(`--tkg-custom-image-repository-ca-certificate: cannot read ${caFile}; give the mirror's CA certificate as a PEM file`);
    }
  }
  const imageRepository = parseImageRepository(values['tkg-custom-image-repository'] ?? '', !!values['tkg-custom-image-repository-skip-tls-verify'], caText, {
    repository: '--tkg-custom-image-repository',
    skipTlsVerify: '--tkg-custom-image-repository-skip-tls-verify',
    caCertificate: '--tkg-custom-image-repository-ca-certificate',
  });
  if (imageRepository && !values['cluster-config']) throw new UsageError('--tkg-custom-image-repository needs --cluster-config: devpkg writes it into a copy of that file');
  // Flags and the package folder first: a bad value is named before the machine is looked at.
  const { settleMs, timeoutMs } = parseWaits(values, { settle: '--settle', timeout: '--timeout' });
  const assertions = await assertionsFlag(values.assert, io);
  const bootstrapTimeoutMs = parseDuration(values['bootstrap-timeout'] ?? '45m', '--bootstrap-timeout');
  const registry = values.registry === undefined ? undefined : parseRegistry(values.registry, '--registry');
  const devVersion = values['dev-version'] === undefined ? undefined : parseVersionFlag(values['dev-version'], '--dev-version');
  const tools = await toolPinsFlags(values, ['ytt', 'imgpkg'], io);
  const platform = hostPlatform();
  checkPin('ytt', tools.ytt, platform);
  if (!values.image) checkPin('imgpkg', tools.imgpkg, platform);
  const install: InstallPolicy = { refuse: !!values['no-install'] };
  const { root, loaded } = await openVersionFolder(folder, '--package');
  const folders = bootstrapFolders(loaded, root);
  // The dev version before any tool is fetched: a --dev-version that would lose is refused now.
  const seq = { timestamp: new Date() };
  await planBootstrapDev({ loaded, seq, devVersion, registry });
  // ytt renders the package config and (without a tanzu CLI) the providers for the dry-run check:
  // missing, it fails here, before anything is changed, rather than weakening the check.
  const yttPath = await ensureYtt({ pin: tools.ytt, env: io.env, log, install });
  if (dryRunWithYtt) log('no tanzu CLI on PATH (and no --tanzu): the dry-run check renders the providers with ytt the way tanzu management-cluster create --dry-run does');
  if (!values['prepare-only'] && !values['skip-host-check']) {
    const problems = checkHost(await readHostFacts(execTool));
    if (problems.length) throw new UsageError(hostRefusal(problems, '--skip-host-check'));
  }
  if (!dryRunWithYtt) await requireManagementCluster(new Tanzu(tanzuPath, execTool, paths.home ? { HOME: paths.home } : {}), tanzuPath);
  const refName = targetRefName(parseRefNameMap(values['ref-name']), loaded.pkg.pkg.spec.refName, 1);

  const previous = await readState(state);
  if (previous.length) {
    throw new UsageError(`${state} lists what an earlier run left (${previous.length} item(s)); run devpkg bootstrap --cleanup first`);
  }
  const cleanup = fileCleanupList(state);
  let code = 1;
  const keep = !!values.keep || !!values['prepare-only'];
  // SIGINT/SIGTERM: the create is stopped or the wait ends, the result is `interrupted`, the
  // providers folder is restored and the clusters are left with their delete commands printed
  // (a second signal exits at once; devpkg bootstrap --cleanup undoes the rest).
  const interruption = watchSignals({ source: deps.signals, log });
  try {
    const out = await runBootstrap({
      signal: interruption.signal,
      loaded,
      folders,
      refName,
      addonType: values['addon-type'],
      image: values.image,
      registry,
      credentials: io.env.DEVPKG_REGISTRY_USERNAME && io.env.DEVPKG_REGISTRY_PASSWORD ? { username: io.env.DEVPKG_REGISTRY_USERNAME, password: io.env.DEVPKG_REGISTRY_PASSWORD } : undefined,
      devVersion,
      seq,
      tools,
      install,
      tanzuPath,
      yttPath,
      dryRunWithYtt,
      paths,
      clusterConfig: values['cluster-config'] ? resolve(io.cwd, values['cluster-config']) : undefined,
      ...(imageRepository ? { imageRepository } : {}),
      prepareOnly: values['prepare-only'],
      bootstrapTimeoutMs,
      timeoutMs,
      settleMs,
      assertions,
      workDir: resolve(io.cwd, values['work-dir'] ?? 'devpkg-bootstrap'),
      cleanup,
      log,
      warn: logger.warning,
    });
    if (values['prepare-only']) {
      const lines = [
        `dev Package ${out.devPackage.metadata.name} (bundle ${out.image})`,
        ...(out.prepared.libraryNote ? [out.prepared.libraryNote] : []),
        'wrote:',
        ...out.prepared.written.map((w) => `  ${w}`),
        `backup of the original files: ${out.prepared.backupDir} (undo with: devpkg bootstrap --cleanup${values['tanzu-dir'] ? ` --tanzu-dir ${values['tanzu-dir']}` : ''})`,
        ...(out.check ? [`dry-run check: ok (ClusterResourceSet ${out.check.crs}, Secret ${out.check.secret}; carried: ${listSome(out.check.carried)})`] : []),
        'create the management cluster with:',
        `  ${out.createCommand}`,
        ...(values['cluster-config'] ? [] : [`  (${CLUSTER_CONFIG_PLACEHOLDER}: your management cluster config file, with CLUSTER_NAME; SUPPRESS_PROVIDERS_UPDATE keeps the CLI from replacing the prepared providers folder)`]),
      ];
      io.stdout(values.json ? `${JSON.stringify({ ...out, prepared: { ...out.prepared, vendoredDocs: undefined, editedDocs: undefined } }, null, 2)}\n` : `${lines.join('\n')}\n`);
      return 0;
    }
    const r = out.result!;
    io.stdout(values.json ? `${JSON.stringify([r], null, 2)}\n` : renderPhases(r) + renderResultText(r));
    code = interruption.exitCode() ?? (passed(r) ? 0 : 1);
    return code;
  } catch (err) {
    if (!(err instanceof InterruptedError)) throw err;
    // The push was stopped by the signal: an interrupted result, as a signal later in the run gives.
    const r: PackageResult = { name: loaded.name, version: loaded.version, refName: loaded.pkg.pkg.spec.refName, targetRefName: refName, mode: 'bootstrap', verdict: 'interrupted', reason: err.message, timeline: [] };
    io.stdout(values.json ? `${JSON.stringify([r], null, 2)}\n` : renderResultText(r));
    code = interruption.exitCode() ?? 130;
    return code;
  } finally {
    interruption.dispose();
    await flush(cleanup);
    if (!keep && interruption.received()) {
      const left = await cleanupInterrupted(cleanup.list(), execTool, paths.home, logger, state);
      log(`interrupted: the providers folder is restored${left.length ? `; left running (delete with devpkg bootstrap --cleanup${values['tanzu-dir'] ? ` --tanzu-dir ${values['tanzu-dir']}` : ''}, or one by one):\n  ${left.join('\n  ')}` : ''}`);
    } else if (!keep) await cleanupBootstrap(cleanup.list(), execTool, paths.home, logger, state);
    else if (!values['prepare-only']) log(`kept the cluster and the providers changes; undo with devpkg bootstrap --cleanup`);
  }
}

function renderPhases(r: { phases?: { name: string; seenAt?: string; startedAt?: string }[] }): string {
  if (!r.phases?.length) return '';
  return `phases:\n${r.phases.map((p) => `  ${p.seenAt ?? p.startedAt ?? ''}  ${p.name}`).join('\n')}\n`;
}

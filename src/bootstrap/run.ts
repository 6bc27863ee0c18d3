/**
 * Bootstrap mode's pipeline, shared by `devpkg bootstrap` and the action: dev Package, providers
 * customisation (phase 1 library, phases 2/3 user customisation), a dry-run check, then
 * `tanzu management-cluster create` on docker, phase tracking on the new cluster, and the
 * verdict after phase 3.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pushBundle, pushLimits } from '../bundle/push.js';
import type { Registry } from '../bundle/reference.js';
import type { RegistryCredentials } from '../bundle/registry.js';
import type { CleanupItem, CleanupList } from '../cleanup-list.js';
import { DevpkgError, errorMessage, InterruptedError } from '../errors.js';
import { parseImageRef } from '../packages/derive.js';
import type { LoadedPackage, LoadedVersion } from '../layouts/index.js';
import { ADDONS_MANAGER_SELECTION, devPackageOf, planDev } from '../packages/devplan.js';
import type { Package } from '../packages/model.js';
import { defaultAddonType, overlayFileName, renderOverlay } from '../packages/overlay.js';
import { checkImageRepository, imageRepositoryValues, withConfigValues, type ImageRepository } from '../providers/image-repository.js';
import { prepareProviders, validateProviders, type PrepareResult } from '../providers/prepare.js';
import type { TanzuPaths } from '../providers/paths.js';
import { clusterNameOf, explainRenderFailure, listSome, type DryRunCheck } from '../providers/validate.js';
import { execTool, ExecTimeoutError, type ExecFn } from '../tools/exec.js';
import { formatDuration } from '../flags.js';
import type { ToolPins } from '../tools/releases.js';
import type { InstallPolicy } from '../tools/toolcache.js';
import { Tanzu, SUPPRESS_PROVIDERS_UPDATE, tanzuArgs } from '../tools/tanzu.js';
import { Ytt } from '../tools/ytt.js';
import type { DevSequence } from '../versions/index.js';
import { verifyOne } from '../verify/index.js';
import type { Assertion } from '../verify/assertions.js';
import type { PackageResult, Phase } from '../results.js';
import { deleteCommandText } from './cleanup.js';
import { PHASE_NAMES, type PhaseNumber } from './phases.js';
import { PhaseTracker } from './tracker.js';
import { undoFindings, type Finding } from './undo.js';

export const TKG2_NOTE =
  'TKG 2.x: ClusterBootstrap (run.tanzu.vmware.com/v1alpha3) pins the exact package versions of the TKR, so a higher dev version cannot win there; ' +
  'change the ClusterBootstrap (or the TKR) instead';

/** What bootstrap pushes and what phase 1 syncs into the providers' _ytt_lib, absolute. */
export interface BootstrapFolders {
  bundle: string;
  config: string;
}

/**
 * The folders bootstrap takes of a loaded package, from its layout's data (its push plan's
 * folder and its bootstrap source) below `root`; a package whose layout gives bootstrap nothing
 * is refused, naming the modes that take it.
 */
export function bootstrapFolders(loaded: Pick<LoadedPackage, 'name' | 'version' | 'layout' | 'push' | 'bootstrap'>, root: string): BootstrapFolders {
  if (!loaded.bootstrap || loaded.push.kind !== 'folder') {
    throw new DevpkgError(
      `bootstrap needs a version folder with bundle/config; ${loaded.name}/${loaded.version} is read by the ${loaded.layout} layout, which gives bootstrap nothing to sync into the providers' _ytt_lib: use kind or cluster mode`,
    );
  }
  return { bundle: path.join(root, loaded.push.folder), config: path.join(root, loaded.bootstrap.config) };
}

export interface BootstrapOptions {
  /** The package, as its layout loaded it: the versions in play are the layout's. */
  loaded: LoadedVersion & Pick<LoadedPackage, 'inPlay'>;
  /** What is pushed and what phase 1 syncs (bootstrapFolders). */
  folders: BootstrapFolders;
  /** The cluster's refName (after the ref-name map). */
  refName: string;
  /** CATEGORY/NAME; default from the package name (cni/antrea). */
  addonType?: string;
  /** A pushed bundle, repo@sha256:... ; or `registry` to push one. */
  image?: string;
  registry?: Registry;
  credentials?: RegistryCredentials;
  pushCommand?: string;
  /** The push command's limit (input push-timeout). */
  pushTimeoutMs?: number;
  /** Run kbld on the bundle before the push (input lock-images). */
  lockImages?: boolean;
  /** The imgpkg release to install for a push, when none is on PATH. */
  tools?: ToolPins;
  /** May devpkg install a missing imgpkg for the push (default yes; --no-install refuses). */
  install?: InstallPolicy;
  devVersion?: string;
  seq: DevSequence;
  tanzuPath: string;
  /** The ytt binary (ensureYtt; default ytt on PATH). */
  yttPath?: string;
  /**
   * No tanzu CLI at hand (prepare-only): the dry-run check renders the providers with ytt the way
   * the CLI does (providers/render.ts) instead of running `tanzu management-cluster create --dry-run`.
   */
  dryRunWithYtt?: boolean;
  paths: TanzuPaths;
  clusterConfig?: string;
  /** TKG_CUSTOM_IMAGE_REPOSITORY (+ _SKIP_TLS_VERIFY, _CA_CERTIFICATE): written into a copy of clusterConfig. */
  imageRepository?: ImageRepository;
  prepareOnly?: boolean;
  bootstrapTimeoutMs: number;
  /** How long to wait for phase 3 and the verdict (each). */
  timeoutMs: number;
  settleMs: number;
  /** Checked on the management cluster after a win (input assert, --assert). */
  assertions?: Assertion[];
  heartbeatMs?: number;
  /** Logs and the admin kubeconfig go here. */
  workDir: string;
  cleanup: CleanupList;
  /**
   * Aborted on SIGINT/SIGTERM: the create is stopped (the tanzu CLI gets SIGTERM), a wait ends at
   * once, and the result is `interrupted`, naming the management cluster's delete command.
   */
  signal?: AbortSignal;
  exec?: ExecFn;
  log?: (m: string) => void;
  warn?: (m: string) => void;
}

export interface BootstrapOutcome {
  devPackage: Package;
  devVersion: string;
  image: string;
  prepared: PrepareResult;
  check?: DryRunCheck;
  createCommand: string;
  /** Set unless prepare-only. */
  result?: PackageResult;
  tanzuLog?: string;
  kubeconfig?: string;
  tkg2?: boolean;
  /** The management cluster's delete command (set once its create was started). */
  deleteCommand?: string;
}

/** Stands for the management cluster config file in a create command printed without --cluster-config. */
export const CLUSTER_CONFIG_PLACEHOLDER = '<cluster-config.yaml>';

export function createCommandText(tanzuPath: string, clusterConfig: string, home?: string): string {
  return [...(home ? [`HOME=${home}`] : []), `${SUPPRESS_PROVIDERS_UPDATE}=1`, tanzuPath, ...tanzuArgs.create({ file: clusterConfig, infrastructure: 'docker' })].join(' ');
}

/** Resolves when `signal` is aborted (never without one). */
function abortedBy(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

function categoryOf(addonType: string): [string, string] {
  const [c, n] = addonType.split('/');
  if (!c || !n) throw new DevpkgError(`--addon-type (input addon-type) "${addonType}" must be CATEGORY/NAME, e.g. cni/antrea`, { exitCode: 2 });
  return [c, n];
}

/**
 * Prepares the providers for a dev Package, then (unless prepare-only) creates the management
 * cluster and follows the dev Package through the bootstrap to a verdict.
 */
export async function runBootstrap(o: BootstrapOptions): Promise<BootstrapOutcome> {
  const prepared = await prepareBootstrap(o);
  if (o.prepareOnly) return prepared.outcome;
  return createAndVerify(o, prepared);
}

/** What the prepare half of a bootstrap hands to the create half. */
export interface PreparedBootstrap {
  outcome: BootstrapOutcome;
  clusterConfig?: string;
  tanzu: Tanzu;
  /** The bundle's digest (from --image or the push). */
  digest?: string;
}

/**
 * The dev version, decided before anything is written or installed: planned as plan mode plans
 * it, against the package's version folders beside this one, under the addons manager's
 * versionSelection; a forced version that would lose is refused here.
 */
export async function planBootstrapDev(o: Pick<BootstrapOptions, 'loaded' | 'seq' | 'devVersion' | 'registry'>): Promise<ReturnType<typeof planDev>> {
  return planDev({
    name: o.loaded.name,
    released: o.loaded.pkg.pkg.spec.version,
    inPlay: o.loaded.inPlay,
    selection: ADDONS_MANAGER_SELECTION,
    seq: o.seq,
    forced: o.devVersion,
    registry: o.registry,
  });
}

/** The dev version, its bundle (given or pushed), the prepared providers folder and its dry-run check. */
async function prepareBootstrap(o: BootstrapOptions): Promise<PreparedBootstrap> {
  const log = o.log ?? (() => undefined);
  const warn = o.warn ?? log;
  const exec = o.exec ?? execTool;
  const pkgName = o.loaded.name;
  const addonType = o.addonType || defaultAddonType(pkgName);
  const [category] = categoryOf(addonType);
  const plan = await planBootstrapDev(o);
  log(`dev version ${plan.version}: ${plan.reason}`);
  const tanzu = new Tanzu(o.tanzuPath, exec, o.paths.home ? { HOME: o.paths.home } : {});
  const ytt = new Ytt(o.yttPath ?? 'ytt', exec);
  await mkdir(o.workDir, { recursive: true });
  const clusterConfig = await effectiveClusterConfig(o, log);

  let image = o.image;
  let digest: string | undefined;
  if (image) {
    const ref = parseImageRef(image);
    if (!ref?.digest) throw new DevpkgError(`--image "${image}" must name the pushed bundle by digest (repo@sha256:...)`, { exitCode: 2 });
    digest = ref.digest;
  } else if (plan.repository) {
    const pushed = await pushBundle({
      bundleDir: o.folders.bundle,
      repository: plan.repository,
      tag: plan.tag,
      credentials: o.credentials,
      pushCommand: o.pushCommand,
      lockImages: o.lockImages,
      // The run's signal stops the push command with its process group, as push-timeout does.
      ...pushLimits(o.pushTimeoutMs, o.signal),
      tools: o.tools,
      install: o.install,
      // DEVPKG_VERSION is the version of the Package the bundle is for, as in the other modes.
      env: { package: pkgName, version: plan.version },
      exec,
      log,
    }).catch((err: unknown) => {
      // Stopped by the signal, not failed: the caller's result is `interrupted`, not an error.
      if (o.signal?.aborted) throw new InterruptedError(`interrupted by ${String(o.signal.reason ?? 'a signal')} while the bundle was pushed; no cluster was created`, err);
      throw err;
    });
    image = pushed.image;
    digest = pushed.digest;
  } else {
    throw new DevpkgError('give --image REPO@sha256:... (a pushed bundle) or --registry (input registry) to push one', { exitCode: 2 });
  }
  const { pkg: devPackage } = devPackageOf(plan, o.loaded.pkg, { image, namespace: 'tkg-system', refName: o.refName });
  const overlay = renderOverlay(devPackage, { name: pkgName, addonType });

  // Providers.
  const prepared = await prepareProviders({
    ...(o.dryRunWithYtt ? {} : { tanzu }),
    ytt,
    paths: o.paths,
    clusterConfig: clusterConfig,
    cleanup: o.cleanup,
    pkgName,
    category,
    configDir: o.folders.config,
    version: o.loaded.version,
    overlay,
    overlayFile: overlayFileName(pkgName),
    log,
  });
  // Without a config file the command still is the next step; the placeholder names what to put there.
  const createCommand = createCommandText(o.tanzuPath, clusterConfig ?? CLUSTER_CONFIG_PLACEHOLDER, o.paths.home);

  let check: DryRunCheck | undefined;
  if (clusterConfig) {
    const configDir = o.folders.config;
    const v = await validateProviders(o.dryRunWithYtt ? { ytt, providersDir: o.paths.providersDir } : { tanzu }, clusterConfig, {
      pkgName,
      devPackageName: devPackage.metadata.name,
      devVersion: plan.version,
      edited: prepared.editedDocs,
      vendored: prepared.vendoredDocs,
      addonType,
    }).catch((err: unknown) => {
      const hint = explainRenderFailure(errorMessage(err), prepared.library, configDir);
      throw hint ? new DevpkgError(`${errorMessage(err)}\n${hint}`, { cause: err }) : err;
    });
    await writeFile(path.join(o.workDir, 'dry-run.yaml'), v.rendered);
    const { rendered: _r, renderedBy, ...rest } = v;
    check = rest;
    log(`dry-run: rendered with ${renderedBy}`);
    for (const n of check.notes) log(`dry-run: ${n}`);
    if (!check.ok) {
      throw new DevpkgError(`${renderedBy} does not render what devpkg prepared (render kept in ${path.join(o.workDir, 'dry-run.yaml')}):\n- ${check.problems.join('\n- ')}`);
    }
    if (o.imageRepository) {
      const ir = checkImageRepository(v.rendered, o.imageRepository);
      log(`dry-run: ${ir.mirrored.length} image reference(s) under ${o.imageRepository.repository}${ir.mirrored.length ? ` (${listSome(ir.mirrored)})` : ''}`);
      if (ir.old.length) warn(`the dry-run render still names ${ir.old.length} image reference(s) on the decommissioned projects.registry.vmware.com: ${listSome(ir.old)}`);
    }
    log(`dry-run: ClusterResourceSet ${check.crs} and Secret ${check.secret} carry ${devPackage.metadata.name}; the ${category} ClusterResourceSets carry ${listSome(check.carried) || 'nothing of the edited config'}`);
  } else {
    warn('no --cluster-config: the providers folder was prepared but not checked with a dry-run');
  }
  const outcome: BootstrapOutcome = { devPackage, devVersion: plan.version, image, prepared, ...(check ? { check } : {}), createCommand };
  return { outcome, clusterConfig, tanzu, digest };
}

/** Creates the management cluster, watches the three phases, and gives the verdict. */
export async function createAndVerify(o: BootstrapOptions, p: PreparedBootstrap): Promise<BootstrapOutcome> {
  const log = o.log ?? (() => undefined);
  const warn = o.warn ?? log;
  const exec = o.exec ?? execTool;
  const pkgName = o.loaded.name;
  const { outcome, clusterConfig, tanzu, digest } = p;
  const { devPackage, image, createCommand } = outcome;
  const plan = { version: outcome.devVersion };
  if (!clusterConfig) throw new DevpkgError('--cluster-config (input cluster-config) is required to create the management cluster', { exitCode: 2 });
  const clusterName = clusterNameOf(await readFile(clusterConfig, 'utf8'));
  if (!clusterName) throw new DevpkgError(`${clusterConfig} sets no CLUSTER_NAME; devpkg needs the name to track and delete the cluster`, { exitCode: 2 });

  const base: Omit<PackageResult, 'verdict' | 'reason' | 'timeline'> = {
    name: pkgName,
    version: o.loaded.version,
    refName: o.loaded.pkg.pkg.spec.refName,
    targetRefName: o.refName,
    devVersion: plan.version,
    bundle: image,
    mode: 'bootstrap',
  };
  const phases: Phase[] = [];
  const by = () => String(o.signal?.reason ?? 'a signal');
  if (o.signal?.aborted) {
    outcome.result = { ...base, verdict: 'interrupted', reason: `interrupted by ${by()} before tanzu management-cluster create; no cluster was created`, timeline: [], phases };
    return outcome;
  }
  const mgmt: CleanupItem = { kind: 'management-cluster', name: clusterName, tanzu: o.tanzuPath };
  o.cleanup.record(mgmt);
  const deleteCommand = deleteCommandText(o.tanzuPath, clusterName, o.paths.home);
  outcome.deleteCommand = deleteCommand;
  const interrupted = (during: string): BootstrapOutcome => {
    outcome.result = {
      ...base,
      verdict: 'interrupted',
      reason: `interrupted by ${by()} ${during}; the management cluster ${clusterName} may be there, partly made: delete it with ${deleteCommand}`,
      timeline: [],
      phases,
    };
    return outcome;
  };

  const tanzuLog = path.join(o.workDir, 'tanzu-management-cluster-create.log');
  const started = Date.now();
  phases.push({ name: 'management-cluster create', startedAt: new Date(started).toISOString() });
  log(`creating management cluster ${clusterName}: ${createCommand}`);
  const heartbeat = setInterval(() => log(`... tanzu management-cluster create still running (${Math.round((Date.now() - started) / 1000)}s; log ${tanzuLog})`), o.heartbeatMs ?? 60_000);
  let created;
  let overran = false;
  try {
    created = await tanzu.create({
      file: clusterConfig,
      infrastructure: 'docker',
      logFile: tanzuLog,
      verbosity: 6,
      timeoutMs: o.bootstrapTimeoutMs,
      onOutput: (c) => {
        for (const line of c.split('\n')) if (line.trim()) log(`tanzu: ${line.trimEnd()}`);
      },
      signal: o.signal,
    });
  } catch (err) {
    if (err instanceof ExecTimeoutError) {
      overran = true;
      created = { code: -1, stdout: err.stdout, stderr: err.stderr };
    } else {
      created = { code: -1, stdout: '', stderr: errorMessage(err) };
    }
  } finally {
    clearInterval(heartbeat);
  }
  await writeFile(path.join(o.workDir, 'tanzu-create-output.log'), `${created.stdout}\n${created.stderr}`);
  await recordLeftovers(exec, o.cleanup, mgmt, clusterName, log);
  outcome.tanzuLog = tanzuLog;
  if (o.signal?.aborted) return interrupted(`during tanzu management-cluster create (after ${Math.round((Date.now() - started) / 1000)}s)`);
  if (created.code !== 0) {
    const tail = `${created.stdout}\n${created.stderr}`.trim().split('\n').slice(-15).join('\n');
    outcome.result = {
      ...base,
      verdict: 'error',
      reason: overran
        ? `tanzu management-cluster create did not finish within ${formatDuration(o.bootstrapTimeoutMs)} (bootstrap-timeout; CLI --bootstrap-timeout) and was stopped; ` +
          `the management cluster ${clusterName} may be there, partly made: delete it with ${deleteCommand}, or raise bootstrap-timeout. Last output:\n${tail || '(none)'}`
        : `tanzu management-cluster create failed (exit ${created.code}) after ${Math.round((Date.now() - started) / 1000)}s; a dev Package that does not install stalls phase 1 until the time-out. Last output:\n${tail}`,
      timeline: [],
      phases,
      diagnostics: { dir: o.workDir, excerpt: tail },
    };
    return outcome;
  }
  phases.push({ name: 'management cluster created', seenAt: new Date().toISOString() });

  const kubeconfig = path.join(o.workDir, `${clusterName}.kubeconfig`);
  await tanzu.exportAdminKubeconfig(kubeconfig);
  outcome.kubeconfig = kubeconfig;
  const { loadKubeConfig } = await import('../cluster/kubeconfig.js');
  const kc = await loadKubeConfig(kubeconfig);

  const tracker = new PhaseTracker(kc, { pkgName, devPackageName: devPackage.metadata.name, refName: o.refName, devVersion: plan.version }, log);
  await tracker.start();
  try {
    const deadline = Date.now() + o.timeoutMs;
    let missingPhase: PhaseNumber | undefined;
    for (const p of [1, 2, 3] as PhaseNumber[]) {
      const seen = await Promise.race([tracker.waitFor(p, Math.max(0, deadline - Date.now())), abortedBy(o.signal).then(() => false)]);
      if (!seen) {
        missingPhase = p;
        break;
      }
    }
    phases.push(...tracker.phases());
    if (o.signal?.aborted) return interrupted(`while waiting for ${PHASE_NAMES[missingPhase ?? 3]}`);
    // TKG 2.x shows itself by its ClusterBootstrap (there by the end of phase 3).
    const tkg2 = await isTkg2(kc);
    outcome.tkg2 = tkg2;
    if (tkg2) warn(TKG2_NOTE);
    if (missingPhase) {
      const st = tracker.last[missingPhase];
      outcome.result = {
        ...base,
        verdict: 'timed-out',
        reason: `${PHASE_NAMES[missingPhase]} was not seen within ${Math.round(o.timeoutMs / 1000)}s: missing ${st.missing.join(', ')} (seen: ${st.seen})${tkg2 ? `. ${TKG2_NOTE}` : ''}`,
        timeline: [],
        phases,
      };
      return outcome;
    }
    const pkgi = tracker.last.packageInstall!;
    const dev = { name: devPackage.metadata.name, refName: o.refName, version: plan.version };
    const findingsNow = () =>
      undoFindings({
        dev,
        pkgi: tracker.last.packageInstall,
        packageRefs: tracker.packageRefs,
        devPackage: tracker.devPackage,
        installs: tracker.installs,
        repositoryImages: tracker.repositoryImages,
        tkrs: tracker.tkrs,
        phaseAt: (at) => phaseOf(tracker, at),
      });
    let result: PackageResult;
    const decisive = findingsNow().find((f) => f.verdict);
    if (decisive) {
      // Nothing brings the dev Package back (the manager rewrites the refName on every reconcile;
      // a repository owns or deleted it): no need to wait for a win, only for the settle window.
      log(`phase 3 seen; ${decisive.text}; letting kapp-controller settle (${o.settleMs / 1000}s)`);
      let settle: NodeJS.Timeout | undefined;
      await Promise.race([new Promise((r) => (settle = setTimeout(r, o.settleMs))), abortedBy(o.signal)]);
      clearTimeout(settle);
      if (o.signal?.aborted) return interrupted(`in the settle window after phase 3 (${decisive.text})`);
      result = { ...base, phases, verdict: decisive.verdict!, reason: `PackageInstall ${pkgi.metadata?.namespace}/${pkgi.metadata?.name} cannot install the dev Package`, timeline: [] };
    } else {
      log(`phase 3 seen; verifying PackageInstall ${pkgi.metadata?.namespace}/${pkgi.metadata?.name} (settle ${o.settleMs / 1000}s)`);
      result = await verifyOne(
        {
          base: { ...base, phases },
          target: { namespace: String(pkgi.metadata?.namespace), name: String(pkgi.metadata?.name) },
          expect: { version: plan.version, digest },
        },
        { kc, settleMs: o.settleMs, timeoutMs: o.timeoutMs, ...(o.assertions?.length ? { assertions: o.assertions } : {}), diagnosticsDir: path.join(o.workDir, 'diagnostics'), extraLogs: [tanzuLog], log, signal: o.signal },
      );
      if (result.verdict === 'interrupted') result.reason += `; the management cluster ${clusterName} stays until deleted: ${deleteCommand}`;
    }
    const findings = findingsNow();
    for (const f of findings) warn(f.text);
    result.reason = explainWithPhases(result, tracker, plan.version, tkg2, findings);
    outcome.result = result;
    return outcome;
  } finally {
    tracker.stop();
  }
}

/**
 * The verdict's reason, with the phase story: when the dev version was installed, and what undid
 * it in which phase. A change after phase 2 was complete belongs to phase 3 (the TKR controller
 * and the addons manager's re-patch), even when phase 3's own objects were seen later.
 */
export function explainWithPhases(
  r: PackageResult,
  t: Pick<PhaseTracker, 'installs' | 'attempts' | 'sighting'>,
  dev: string,
  tkg2: boolean,
  findings: Finding[] = [],
): string {
  const parts = [r.reason];
  const p3 = t.sighting(3);
  const p2 = t.sighting(2);
  const phaseAt = (at: string) => phaseOf(t, at);
  if (r.verdict === 'won') {
    parts.push(`the dev version held after phase 3 (seen ${p3?.at ?? '?'})`);
  } else {
    const devSeen = t.installs.find((i) => i.version === dev);
    const moves = [...t.attempts, ...t.installs].filter((i) => devSeen && i.at >= devSeen.at && i.version !== dev).sort((a, b) => a.at.localeCompare(b.at));
    if (devSeen && moves.length) {
      const undone = moves[0]!;
      const phase = phaseAt(undone.at);
      parts.push(`lost in phase ${phase}: the dev version ${dev} was installed at ${devSeen.at}, then ${undone.version} replaced it at ${undone.at}` + (phase === 3 && p3 ? ` (phase 3 complete at ${p3.at})` : ''));
    } else if (devSeen) {
      parts.push(`the dev version was installed at ${devSeen.at} (phase ${phaseAt(devSeen.at)}) but did not hold through the settle window`);
    } else {
      parts.push(`the dev version was never installed; phase 2 installed ${p2?.installed ?? 'nothing yet'}, and after phase 3 ${t.installs[t.installs.length - 1]?.version ?? 'nothing'} was installed`);
    }
  }
  // What undid it, plainly (src/bootstrap/undo.ts; docs/addons-manager.md).
  parts.push(...findings.map((f) => f.text));
  if (tkg2) parts.push(TKG2_NOTE);
  return parts.join('; ');
}

/**
 * The phase a change at `at` belongs to: after phase 2 was complete, phase 3 (its re-patch); what
 * was already there when phase 2 was first seen complete, phase 2.
 */
export function phaseOf(t: Pick<PhaseTracker, 'sighting'>, at: string): PhaseNumber {
  const p1 = t.sighting(1);
  const p2 = t.sighting(2);
  if (p2 && at > p2.at) return 3;
  return (p2 && at === p2.at) || (p1 && at > p1.at) ? 2 : 1;
}

async function isTkg2(kc: import('@kubernetes/client-node').KubeConfig): Promise<boolean> {
  const k8s = await import('@kubernetes/client-node');
  try {
    const r = (await kc.makeApiClient(k8s.CustomObjectsApi).listClusterCustomObject({ group: 'run.tanzu.vmware.com', version: 'v1alpha3', plural: 'clusterbootstraps' })) as { items?: unknown[] };
    return (r.items ?? []).length > 0;
  } catch {
    return false;
  }
}

/**
 * After create: leftover kind bootstrap clusters (tkg-kind-*) and CAPD containers of the cluster
 * go on the CleanupList, and the management cluster is moved to the end so that it is deleted
 * first (its delete needs those containers).
 */
async function recordLeftovers(exec: ExecFn, cleanup: CleanupList, mgmt: CleanupItem, clusterName: string, log: (m: string) => void): Promise<void> {
  const found: CleanupItem[] = [];
  try {
    const k = await exec('kind', ['get', 'clusters'], { allowFail: true });
    for (const n of k.stdout.split('\n').map((s) => s.trim())) if (n.startsWith('tkg-kind-')) found.push({ kind: 'kind-cluster', name: n });
  } catch {
    /* no kind here */
  }
  try {
    const d = await exec('docker', ['ps', '-a', '--format', '{{.Names}}', '--filter', `name=^${clusterName}-`], { allowFail: true });
    for (const n of d.stdout.split('\n').map((s) => s.trim())) if (n) found.push({ kind: 'docker-container', name: n });
  } catch {
    /* no docker here */
  }
  if (found.length === 0) return;
  log(`recorded for cleanup: ${found.map((f) => ('name' in f ? f.name : '')).join(', ')}`);
  cleanup.done(mgmt);
  for (const f of found) cleanup.record(f);
  cleanup.record(mgmt);
}

/**
 * The cluster config the CLI gets: the user's file, or with an image repository a copy of it in
 * the work folder with the TKG_CUSTOM_IMAGE_REPOSITORY variables set (the user's file stays as it is).
 */
async function effectiveClusterConfig(o: BootstrapOptions, log: (m: string) => void): Promise<string | undefined> {
  if (!o.imageRepository) return o.clusterConfig;
  if (!o.clusterConfig) {
    throw new DevpkgError('--tkg-custom-image-repository (input tkg-custom-image-repository) needs --cluster-config (input cluster-config): devpkg writes it into a copy of that file', { exitCode: 2 });
  }
  const file = path.join(o.workDir, `${path.basename(o.clusterConfig).replace(/\.ya?ml$/, '')}.devpkg.yaml`);
  await writeFile(file, withConfigValues(await readFile(o.clusterConfig, 'utf8'), imageRepositoryValues(o.imageRepository), o.clusterConfig));
  log(`cluster config ${file}: ${o.clusterConfig} with TKG_CUSTOM_IMAGE_REPOSITORY=${o.imageRepository.repository}${o.imageRepository.skipTlsVerify ? ' (skip TLS verify)' : ''}${o.imageRepository.caCertificate ? ' (with its CA certificate)' : ''}`);
  return file;
}

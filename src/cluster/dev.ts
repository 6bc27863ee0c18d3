/**
 * The cluster pipeline shared by the cluster and kind modes and `devpkg dev`: find the
 * PackageInstall(s) of a package's refName, plan a dev version that outranks every version in
 * play (earlier dev attempts included, because of the downgrade guard), push the bundle, derive
 * the dev Package, server-side apply it, and hand back what to verify.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import { copyBundle, pushBundle, pushLimits, type PushBundleResult } from '../bundle/push.js';
import { clusterImage, formatRepository, parseImageTag, type Registry } from '../bundle/reference.js';
import { RegistryClient, type RegistryCredentials } from '../bundle/registry.js';
import { DevpkgError, errorMessage } from '../errors.js';
import { devPackageOf, planDev, type DevPlan, type Pin } from '../packages/devplan.js';
import type { LoadedVersion } from '../layouts/index.js';
import type { BundleSource, LoadedPackage } from '../layouts/index.js';
import type { Package } from '../packages/model.js';
import { targetRefName, type RefNameMap } from '../packages/refname.js';
import type { ExecFn } from '../tools/exec.js';
import type { DevSequence, LabeledSelection, VersionSelection } from '../versions/index.js';
import type { KObject } from '../verify/evaluate.js';
import type { VerifyRequest } from '../verify/index.js';
import { acquireRunLease, type HeldLease, type RunLeaseOptions } from './runlease.js';
import { ClusterClient } from './client.js';
import type { Mode } from '../results.js';

export interface PackageInstallInfo {
  namespace: string;
  name: string;
  refName: string;
  selection?: VersionSelection;
  status: { version?: string; lastAttemptedVersion?: string };
  /** metadata.deletionTimestamp: kapp-controller is deleting it. */
  deletingSince?: string;
}

/** Pure: the PackageInstalls of one refName, out of every PackageInstall in the cluster. */
export function matchPackageInstalls(all: KObject[], refName: string): PackageInstallInfo[] {
  return all
    .filter((p) => p.spec?.packageRef?.refName === refName)
    .map(packageInstallInfo)
    .sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
}

/** Pure: what devpkg reads of a PackageInstall. */
export function packageInstallInfo(p: KObject): PackageInstallInfo {
  return {
    namespace: p.metadata?.namespace ?? '',
    name: p.metadata?.name ?? '',
    refName: p.spec?.packageRef?.refName ?? '',
    selection: p.spec?.packageRef?.versionSelection ?? undefined,
    status: { version: p.status?.version, lastAttemptedVersion: p.status?.lastAttemptedVersion },
    ...(p.metadata?.deletionTimestamp ? { deletingSince: String(p.metadata.deletionTimestamp) } : {}),
  };
}

/**
 * Pure: which PackageInstalls found by refName get the dev version, and a line for each left out.
 * One being deleted does not: kapp-controller only tears it down, and its namespace is often
 * terminating, where the dev Package is refused (which made the whole package an error).
 */
export function packageInstallTargets(found: PackageInstallInfo[]): { targets: PackageInstallInfo[]; skipped: string[] } {
  return {
    targets: found.filter((p) => !p.deletingSince),
    skipped: found.filter((p) => p.deletingSince).map((p) => `PackageInstall ${p.namespace}/${p.name} is being deleted (since ${p.deletingSince}); leaving it out`),
  };
}

/**
 * Pure: every version in play for the dev version plan: the cluster's Packages of the refName,
 * and what the PackageInstalls installed or last attempted (a higher earlier attempt blocks a
 * lower dev version: the downgrade guard).
 */
export function versionsInPlay(packages: KObject[], pkgis: PackageInstallInfo[]): string[] {
  const set = new Set<string>();
  for (const p of packages) if (p.spec?.version) set.add(String(p.spec.version));
  for (const i of pkgis) {
    if (i.status.version) set.add(i.status.version);
    if (i.status.lastAttemptedVersion) set.add(i.status.lastAttemptedVersion);
  }
  return [...set];
}

/**
 * Pure: the dev plan against every PackageInstall of the refName, each with its own
 * versionSelection: the dev version wins under all of them, or planDev refuses naming which.
 */
export function planForPackageInstalls(
  o: { name: string; released: string; seq: DevSequence; devVersion?: string; pinned?: Pin; registry: Registry },
  pkgis: PackageInstallInfo[],
  versions: string[],
): DevPlan & Required<Pick<DevPlan, 'repository' | 'tagImage'>> {
  return planDev({
    name: o.name,
    released: o.released,
    inPlay: versions,
    selection: pkgis[0]?.selection ?? {},
    selections: pkgis.map((p): LabeledSelection => ({ label: `PackageInstall ${p.namespace}/${p.name}`, selection: p.selection ?? {} })),
    seq: o.seq,
    forced: o.devVersion,
    ...(o.pinned ? { pinned: o.pinned } : {}),
    registry: o.registry,
  });
}

export interface DevPipelineOptions {
  client: ClusterClient;
  /** Repository root (the version folder paths are relative to it). */
  root: string;
  /** The package version (a layout's LoadedPackage, or a version folder read by `devpkg dev`). */
  loaded: LoadedVersion & Partial<Pick<LoadedPackage, 'released' | 'pinned'>>;
  /** What to push, from the package's layout (its push plan carried out: Layouts.bundle). */
  bundle: BundleSource;
  /** How many packages are in play (guards a bare ref-name). */
  packageCount: number;
  refNames: RefNameMap;
  /** NS/NAME given by the user; otherwise every PackageInstall of the refName. */
  packageInstall?: { namespace: string; name: string };
  /** Where to push (the package's `<name>-bundle` is appended). */
  registry: Registry;
  /**
   * Where the cluster pulls from when that is not `registry` (--cluster-registry, input
   * cluster-registry; kind: the registry's address on the kind network): HOST[:PORT] swaps the
   * host, HOST[:PORT]/PATH replaces `registry`.
   */
  clusterRegistry?: Registry;
  credentials?: RegistryCredentials;
  pushCommand?: string;
  lockImages?: boolean;
  plainHttp?: boolean;
  seq: DevSequence;
  /** A fixed dev version (input dev-version) instead of a planned one. */
  devVersion?: string;
  /** Derive from the cluster's Package of the version in place instead of the repository's package.yaml. */
  deriveFrom?: 'repo' | 'cluster';
  mode: Mode;
  exec?: ExecFn;
  log?: (m: string) => void;
  /**
   * The bundle already pushed for the dev version the caller expected (kind mode pushes while the
   * cluster comes up, for the plan of a fresh cluster holding only the baseline): used when the
   * plan made here has that repository and tag, else pushed again.
   */
  prepushed?: { repository: string; tag: string; pushed: PushBundleResult };
  /**
   * Take the PackageInstalls' run Leases first (src/cluster/runlease.ts): a concurrent devpkg run
   * is named and this one stops. The caller releases them (result.release) after verifying.
   */
  runLease?: RunLeaseOptions;
  /** The push command's limit (input push-timeout). */
  pushTimeoutMs?: number;
  /** Aborted (SIGINT/SIGTERM): a running push command is stopped with its process group. */
  signal?: AbortSignal;
  /** Told each step as it starts, so a failure can name the step it happened in. */
  onStep?: (step: DevStep) => void;
}

/** The steps of runDevPipeline, in order, as a failure names them. */
export const DEV_STEPS = ['finding the PackageInstall', 'taking the run Lease', 'planning the dev version', 'pushing the bundle', 'applying the dev Package'] as const;
export type DevStep = (typeof DEV_STEPS)[number];

export interface DevPipelineResult {
  plan: DevPlan;
  pushed: PushBundleResult;
  /** What the cluster references (the pushed image, host rewritten for kind). */
  image: string;
  packages: Package[];
  pkgis: PackageInstallInfo[];
  releasedVersion?: string;
  requests: VerifyRequest[];
  /** Releases the run Leases taken (none without runLease). */
  release: () => Promise<void>;
}

export async function findPackageInstalls(
  client: Pick<ClusterClient, 'readPackageInstall' | 'listPackageInstalls'>,
  refName: string,
  named?: { namespace: string; name: string },
  log: (m: string) => void = () => undefined,
): Promise<PackageInstallInfo[]> {
  if (named) {
    const p = await client.readPackageInstall(named.namespace, named.name);
    if (!p) throw new DevpkgError(`PackageInstall ${named.namespace}/${named.name} does not exist; check --package-install (input package-install)`);
    const info = packageInstallInfo(p);
    if (info.deletingSince) {
      throw new DevpkgError(
        `PackageInstall ${named.namespace}/${named.name} is being deleted (since ${info.deletingSince}): kapp-controller will not install a dev version on it; ` +
          'run again once its owner (e.g. the addons manager) has recreated it, or name another with --package-install (input package-install)',
      );
    }
    return [info];
  }
  const found = matchPackageInstalls(await client.listPackageInstalls(), refName);
  const { targets, skipped } = packageInstallTargets(found);
  for (const m of skipped) log(m);
  if (targets.length === 0) {
    throw new DevpkgError(
      `no PackageInstall in the cluster installs refName ${refName}${skipped.length ? ` but ${skipped.length} being deleted (left out)` : ''}; ` +
        'name one with --package-install NS/NAME (input package-install), ' +
        'or map the repository refName to the cluster\'s with --ref-name FROM=TO (input ref-name)',
    );
  }
  return targets;
}

export async function runDevPipeline(o: DevPipelineOptions): Promise<DevPipelineResult> {
  const log = o.log ?? (() => undefined);
  const repoPkg = o.loaded.pkg.pkg;
  const target = targetRefName(o.refNames, repoPkg.spec.refName, o.packageCount);
  o.onStep?.('finding the PackageInstall');
  const pkgis = await findPackageInstalls(o.client, target, o.packageInstall, log);
  for (const p of pkgis) {
    if (p.refName !== target) log(`PackageInstall ${p.namespace}/${p.name} installs ${p.refName}; the dev Package uses that refName`);
  }
  const leases: HeldLease[] = [];
  const release = async (): Promise<void> => {
    for (const l of leases.splice(0)) await l.release();
  };
  try {
    if (o.runLease) {
      o.onStep?.('taking the run Lease');
      for (const p of pkgis) {
        const l = await acquireRunLease(o.client.kc, p, o.runLease, log);
        if (l) leases.push(l);
      }
    }
    return { ...(await pushAndApply(o, pkgis, target, log)), release };
  } catch (err) {
    await release();
    throw err;
  }
}

async function pushAndApply(
  o: DevPipelineOptions,
  pkgis: PackageInstallInfo[],
  target: string,
  log: (m: string) => void,
): Promise<Omit<DevPipelineResult, 'release'>> {
  const repoPkg = o.loaded.pkg.pkg;
  o.onStep?.('planning the dev version');
  const refName = pkgis[0]!.refName;
  const namespaces = [...new Set(pkgis.map((p) => p.namespace))];
  const clusterPackages = (await Promise.all(namespaces.map((ns) => o.client.listPackages(ns, refName)))).flat();
  const versions = versionsInPlay(clusterPackages, pkgis);
  log(`${o.loaded.name}/${o.loaded.version}: PackageInstall(s) ${pkgis.map((p) => `${p.namespace}/${p.name}`).join(', ')} of ${refName}; versions in play: ${versions.join(', ') || 'none'}`);
  const plan = planForPackageInstalls({ name: o.loaded.name, released: o.loaded.released ?? repoPkg.spec.version, seq: o.seq, devVersion: o.devVersion, pinned: o.loaded.pinned, registry: o.registry }, pkgis, versions);
  log(`dev version ${plan.version}: ${plan.reason}`);

  const source = o.bundle;
  o.onStep?.('pushing the bundle');
  // A bundle used as it is goes into the cluster's own registry when there is one (kind mode).
  const copied = 'image' in source && o.clusterRegistry ? await copyBundle({ image: source.image, repository: plan.repository!, exec: o.exec, log }) : undefined;
  const early = o.prepushed && 'folder' in source && o.prepushed.tag === plan.tag && o.prepushed.repository === formatRepository(plan.repository) ? o.prepushed.pushed : undefined;
  if (o.prepushed && !early) log(`the bundle pushed early as ${o.prepushed.repository}:${o.prepushed.tag} is not the planned ${formatRepository(plan.repository)}:${plan.tag}; pushing again`);
  else if (early) log(`the bundle was pushed while the cluster came up: ${early.image}`);
  const pushed = copied ?? early ?? ('image' in source ? await ownBundle(source.image, { registry: o.registry, credentials: o.credentials, plainHttp: o.plainHttp, log }) : await pushDevBundle(o, plan, source.folder));
  const image = 'image' in source && !copied ? pushed.image : clusterImage(pushed.image, o.registry, o.clusterRegistry);

  const released = pkgis[0]!.status.version;
  o.onStep?.('applying the dev Package');
  const packages: Package[] = [];
  for (const ns of namespaces) {
    let from: Package = repoPkg;
    if (o.deriveFrom === 'cluster') {
      const inPlace = clusterPackages.find((p) => p.spec?.version === released && p.metadata?.namespace === ns);
      if (inPlace) from = inPlace as unknown as Package;
      else log(`no Package ${refName}.${released} in ${ns} to derive from; using the repository's package.yaml`);
    }
    const { pkg } = devPackageOf(plan, from, { image, namespace: ns, refName, allowTag: 'image' in source });
    log(`applying Package ${ns}/${pkg.metadata.name} (bundle ${image})`);
    await o.client.apply(pkg as unknown as KubernetesObject);
    packages.push(pkg);
  }

  const requests: VerifyRequest[] = pkgis.map((p) => ({
    base: {
      name: o.loaded.name,
      version: o.loaded.version,
      refName: repoPkg.spec.refName,
      targetRefName: p.refName,
      ...(p.status.version ? { releasedVersion: p.status.version } : {}),
      devVersion: plan.version,
      bundle: image,
      mode: o.mode,
    },
    target: { namespace: p.namespace, name: p.name },
    expect: { version: plan.version, ...(pushed.digest ? { digest: pushed.digest } : {}) },
    applied: packages.filter((k) => k.metadata.namespace === p.namespace).map((k) => ({ namespace: p.namespace, name: k.metadata.name })),
  }));
  return { plan, pushed, image, packages, pkgis, releasedVersion: released, requests };
}

/** The dev bundle folder pushed for a plan (the one push the pipeline does; kind mode calls it early). */
export function pushDevBundle(
  o: Pick<DevPipelineOptions, 'root' | 'loaded' | 'credentials' | 'pushCommand' | 'pushTimeoutMs' | 'signal' | 'lockImages' | 'plainHttp' | 'exec' | 'log'>,
  plan: Pick<DevPlan, 'version' | 'tag'> & Required<Pick<DevPlan, 'repository'>>,
  folder: string,
): Promise<PushBundleResult> {
  return pushBundle({
    bundleDir: folder,
    repository: plan.repository,
    tag: plan.tag,
    credentials: o.credentials,
    pushCommand: o.pushCommand,
    cwd: o.root,
    lockImages: o.lockImages,
    plainHttp: o.plainHttp,
    env: { package: o.loaded.name, version: plan.version },
    ...pushLimits(o.pushTimeoutMs, o.signal),
    exec: o.exec,
    log: o.log,
  });
}

/**
 * A bundle used as it is (nothing pushed): its digest when the Package pins one; when it is
 * referenced by tag, the digest the registry resolves the tag to, pinned in the dev Package
 * (kapp-controller would resolve the tag again on every sync). A registry that cannot be asked
 * leaves the tag, said in the log.
 */
export async function ownBundle(image: string, o: { registry?: Registry; credentials?: RegistryCredentials; plainHttp?: boolean; fetch?: typeof fetch; log: (m: string) => void }): Promise<PushBundleResult> {
  const digest = /@(sha256:[0-9a-f]{64})$/.exec(image)?.[1];
  if (digest) {
    o.log(`the Package's own bundle ${image} is used as it is (nothing to push)`);
    return { image, digest, tag: '' };
  }
  try {
    const { repository, tag } = parseImageTag(image);
    // The push registry's credentials and transport only for the push registry's own host.
    const same = o.registry?.host === repository.host;
    const client = new RegistryClient(repository.host, { ...(same && o.credentials ? { credentials: o.credentials } : {}), ...(same && o.plainHttp !== undefined ? { plainHttp: o.plainHttp } : {}), ...(o.fetch ? { fetch: o.fetch } : {}) });
    const resolved = await client.resolveDigest(repository.path, tag);
    const pinned = `${formatRepository(repository)}@${resolved}`;
    o.log(`the Package's own bundle ${image} is used as it is (nothing to push); its tag resolves to ${resolved}, pinned in the dev Package as ${pinned}`);
    return { image: pinned, digest: resolved, tag };
  } catch (err) {
    o.log(`the Package's own bundle ${image} is used as it is (nothing to push), by its tag: its digest could not be resolved (${errorMessage(err)}), so the App is not checked against one`);
    return { image, digest: '', tag: '' };
  }
}

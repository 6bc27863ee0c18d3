/**
 * The kind mode's baseline, installed the way phase 2 of a bootstrap would: the released version
 * of the package (built from the base ref), a Package for it, and a PackageInstall shaped like the
 * addons manager's (refName only, `prereleases: {}`, no constraints) in tkg-system, with a service
 * account bound to cluster-admin. Waits until kapp-controller installed it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { copyBundle, pushBundle, pushLimits } from '../bundle/push.js';
import { clusterImage, type Registry } from '../bundle/reference.js';
import { DevpkgError } from '../errors.js';
import { deriveDevPackage } from '../packages/derive.js';
import { bundleOf } from '../packages/devplan.js';
import type { BuildOptions, LoadedPackage, ReleasedSource } from '../layouts/index.js';
import type { ExecFn } from '../tools/exec.js';
import type { TimelineEntry } from '../results.js';
import { verifyPackageInstall } from '../verify/verifier.js';
import type { ClusterClient } from './client.js';

export const ADDONS_NAMESPACE = 'tkg-system';

/** The objects that give kapp-controller an identity to install with (pure). */
export function installIdentity(namespace: string, serviceAccount: string): KubernetesObject[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount, namespace } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `${serviceAccount}-${namespace}-cluster-admin` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', name: serviceAccount, namespace }],
    } as KubernetesObject,
  ];
}

/** A PackageInstall like tanzu-addons-manager's for a core package (pure). */
export function addonsManagerPackageInstall(o: { namespace: string; name: string; refName: string; serviceAccount: string; valuesSecret?: string }): KubernetesObject {
  return {
    apiVersion: 'packaging.carvel.dev/v1alpha1',
    kind: 'PackageInstall',
    metadata: { name: o.name, namespace: o.namespace },
    spec: {
      serviceAccountName: o.serviceAccount,
      packageRef: { refName: o.refName, versionSelection: { prereleases: {} } },
      ...(o.valuesSecret ? { values: [{ secretRef: { name: o.valuesSecret } }] } : {}),
      // kapp-controller's shortest sync period; the addons manager's own is longer.
      syncPeriod: '30s',
    },
  } as KubernetesObject;
}


export interface BaselineOptions {
  client: ClusterClient;
  kc: KubeConfig;
  exec: ExecFn;
  root: string;
  /** The package version at head, as its layout loaded it (Layouts.load). */
  loaded: Pick<LoadedPackage, 'name' | 'releasedSource'>;
  /**
   * The released version (building in the folder it is given); undefined when there is none (a
   * package new in the repository: the PackageInstall is made, and the dev Package is its first
   * install). Default: the loaded package's own (`releasedSource`, from the layout that read it).
   */
  released?: (build: BuildOptions & { baseRef?: string }) => Promise<ReleasedSource | undefined>;
  /** The base ref; the released version is built from the version folder as it was there. */
  baseRef?: string;
  /** The refName the cluster uses (after the ref-name map). */
  refName: string;
  /** Push here (the package's `<name>-bundle` is appended). */
  registry: Registry;
  /** Where the cluster pulls from, when not from `registry` (kind: the registry's address on the kind network). */
  clusterRegistry?: Registry;
  namespace?: string;
  serviceAccount?: string;
  /** The repository's own push target (input push-command), run in `root` for the released bundle too. */
  pushCommand?: string;
  /** The push command's limit (input push-timeout). */
  pushTimeoutMs?: number;
  /** Data values for the PackageInstall (the addons manager passes the cluster's), as YAML. */
  values?: string;
  timeoutMs: number;
  /** Aborted on SIGINT/SIGTERM: the wait for the baseline ends at once. */
  signal?: AbortSignal;
  /** Where the scratch folder goes (kind: the cluster's folder, which the cleanup list names); else the temp folder. */
  scratch?: string;
  log?: (m: string) => void;
}

export interface Baseline {
  namespace: string;
  name: string;
  releasedVersion: string;
  image: string;
  /** Where the released source came from (none: no released version; the dev Package installs first). */
  source: 'base-ref' | 'head' | 'none';
  installedAt: string;
  /** What went wrong around the install and was waited out (kapp-controller away, the API server silent), as timeline entries. */
  faults?: TimelineEntry[];
}

/** The timeline entries of the faults a wait went through: kapp-controller going and coming back, API server gaps. Pure. */
export function faultEntries(timeline: TimelineEntry[]): TimelineEntry[] {
  return timeline.filter((t) => t.object === 'kapp-controller' || t.object === 'API server');
}

/** The released version's bundle, pushed (or copied) and ready to be installed (pushBaseline). */
export interface BaselineBundle {
  released: ReleasedSource;
  version: string;
  /** As pushed (the push registry's host) when `inRegistry`; else the Package's own image. */
  image: string;
  digest?: string;
  /** Pushed or copied into `registry` (the cluster pulls it through clusterRegistry). */
  inRegistry: boolean;
}

export type PushBaselineOptions = Omit<BaselineOptions, 'client' | 'kc' | 'namespace' | 'serviceAccount' | 'values' | 'timeoutMs' | 'refName' | 'clusterRegistry'> & {
  /** A bundle used as it is is copied into `registry` (kind mode's, which the cluster pulls from). */
  copyToRegistry?: boolean;
};

/**
 * Builds the released version and pushes its bundle; needs no cluster (kind mode does it while
 * the cluster comes up). Undefined when the layout has no released version.
 */
export async function pushBaseline(o: PushBaselineOptions, built?: { released: ReleasedSource | undefined }): Promise<BaselineBundle | undefined> {
  const log = o.log ?? (() => undefined);
  const tmp = built ? undefined : await mkdtemp(join(o.scratch ?? tmpdir(), 'devpkg-baseline-'));
  try {
    const released = built ? built.released : await buildBaseline(o, tmp!);
    if (!released) return undefined;
    const version = released.pkg.pkg.spec.version;
    log(`baseline: ${o.loaded.name} ${version} from ${released.from}`);
    if ('image' in released.bundle && o.copyToRegistry) {
      // Used as it is, but from the cluster's own registry (kind mode): copied there, digest kept.
      const copied = await copyBundle({ image: released.bundle.image, repository: bundleOf(o.registry, o.loaded.name, version).repository, exec: o.exec, log });
      return { released, version, image: copied.image, digest: copied.digest, inRegistry: true };
    }
    if ('image' in released.bundle) {
      const image = released.bundle.image;
      const digest = /@(sha256:[0-9a-f]{64})$/.exec(image)?.[1];
      return { released, version, image, ...(digest ? { digest } : {}), inRegistry: false };
    }
    const bundle = bundleOf(o.registry, o.loaded.name, version);
    const pushed = await pushBundle({
      bundleDir: released.bundle.folder,
      repository: bundle.repository,
      tag: bundle.tag,
      pushCommand: o.pushCommand,
      ...pushLimits(o.pushTimeoutMs, o.signal),
      cwd: o.root,
      env: { package: o.loaded.name, version },
      exec: o.exec,
      log,
    });
    return { released, version, image: pushed.image, digest: pushed.digest, inRegistry: true };
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}

/** The released version built in `tmp` (the caller removes it); undefined when the layout has none. */
export function buildBaseline(o: Pick<PushBaselineOptions, 'root' | 'exec' | 'log' | 'released' | 'baseRef' | 'loaded'>, tmp: string): Promise<ReleasedSource | undefined> {
  const log = o.log ?? (() => undefined);
  const build = { root: o.root, exec: o.exec, tmp, log: (m: string) => log(`baseline: ${m}`) };
  return (o.released ?? o.loaded.releasedSource)({ ...build, baseRef: o.baseRef });
}

/** The baseline in one go: pushBaseline, then applyBaseline. */
export async function installBaseline(o: BaselineOptions): Promise<Baseline> {
  return applyBaseline(o, await pushBaseline({ ...o, copyToRegistry: o.clusterRegistry !== undefined }));
}

/**
 * The identity, the PackageMetadata, the released Package (from what pushBaseline pushed) and an
 * addons-manager-shaped PackageInstall applied; waits until kapp-controller installed it.
 */
export async function applyBaseline(o: BaselineOptions, pushed: BaselineBundle | undefined): Promise<Baseline> {
  const log = o.log ?? (() => undefined);
  const namespace = o.namespace ?? ADDONS_NAMESPACE;
  const serviceAccount = o.serviceAccount ?? `${o.loaded.name}-sa`;
  for (const obj of installIdentity(namespace, serviceAccount)) await o.client.apply(obj);
  await o.client.apply({
    apiVersion: 'data.packaging.carvel.dev/v1alpha1',
    kind: 'PackageMetadata',
    metadata: { name: o.refName, namespace },
    spec: { displayName: o.loaded.name, shortDescription: `${o.loaded.name} (devpkg baseline)` },
  } as KubernetesObject);
  const valuesSecret = o.values === undefined ? undefined : `${o.loaded.name}-values`;
  if (valuesSecret) {
    await o.client.apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: valuesSecret, namespace }, stringData: { 'values.yaml': o.values } } as KubernetesObject);
  }
  const install = addonsManagerPackageInstall({ namespace, name: o.loaded.name, refName: o.refName, serviceAccount, valuesSecret });
  if (!pushed) {
    log(`baseline: no released version of ${o.refName} to start from; the dev Package will be the first install of PackageInstall ${namespace}/${o.loaded.name}`);
    await o.client.apply(install);
    return { namespace, name: o.loaded.name, releasedVersion: '', image: '', source: 'none', installedAt: new Date().toISOString() };
  }
  const { version, digest, released } = pushed;
  const image = pushed.inRegistry ? clusterImage(pushed.image, o.registry, o.clusterRegistry) : pushed.image;
  const { pkg: releasedPkg } = deriveDevPackage(released.pkg, { version, image, namespace, refName: o.refName, allowTag: digest === undefined });
  delete releasedPkg.metadata.annotations?.['devpkg.dev/derived-from'];
  if (releasedPkg.metadata.annotations && Object.keys(releasedPkg.metadata.annotations).length === 0) delete releasedPkg.metadata.annotations;
  await o.client.apply(releasedPkg as unknown as KubernetesObject);
  await o.client.apply(install);
  log(`baseline: waiting for PackageInstall ${namespace}/${o.loaded.name} to install ${version}`);
  const outcome = await verifyPackageInstall({
    kc: o.kc,
    target: { namespace, name: o.loaded.name },
    expect: { version, ...(digest ? { digest } : {}) },
    settleMs: 0,
    timeoutMs: o.timeoutMs,
    signal: o.signal,
    log,
  });
  if (outcome.verdict !== 'won') {
    throw new DevpkgError(`the baseline (released ${o.loaded.name} ${version}) did not install: ${outcome.verdict}: ${outcome.reason}`);
  }
  const faults = faultEntries(outcome.timeline).map((t) => ({ ...t, message: `during the baseline: ${t.message ?? ''}` }));
  return {
    namespace,
    name: o.loaded.name,
    releasedVersion: version,
    image,
    source: released.atBase ? 'base-ref' : 'head',
    installedAt: outcome.decidedAt,
    ...(faults.length ? { faults } : {}),
  };
}

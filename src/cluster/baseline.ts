/**
 * The kind mode's baseline, installed the way phase 2 of a bootstrap would: the released version
 * of the package (built from the base ref), a Package for it, and a PackageInstall shaped like the
 * addons manager's (refName only, `prereleases: {}`, no constraints) in tkg-system, with a service
 * account bound to cluster-admin. Waits until kapp-controller installed it.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import { pushBundle } from '../bundle/push.js';
import { clusterImage, type Registry } from '../bundle/reference.js';
import { DevpkgError } from '../errors.js';
import { deriveDevPackage } from '../packages/derive.js';
import { bundleOf } from '../packages/devplan.js';
import type { LoadedVersion } from '../packages/layout.js';
import { parsePackageFile, type PackageResource } from '../packages/model.js';
import type { ExecFn } from '../tools/exec.js';
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

/**
 * Copies `folder` (relative to the repository root) as it was at `ref` into `dest` with git
 * archive + tar (no shell). Returns false when the folder does not exist at that ref.
 */
export async function exportFolderAtRef(exec: ExecFn, root: string, ref: string, folder: string, dest: string): Promise<boolean> {
  const ls = await exec('git', ['-C', root, 'ls-tree', '-d', '--name-only', ref, '--', folder], { allowFail: true });
  if (ls.code !== 0 || ls.stdout.trim() === '') return false;
  await mkdir(dest, { recursive: true });
  const tar = join(dest, '.devpkg-export.tar');
  await exec('git', ['-C', root, 'archive', '--format=tar', '-o', tar, ref, '--', folder]);
  await exec('tar', ['-xf', tar, '-C', dest]);
  await rm(tar, { force: true });
  return true;
}

export interface BaselineOptions {
  client: ClusterClient;
  kc: KubeConfig;
  exec: ExecFn;
  root: string;
  /** The version folder at head. */
  loaded: LoadedVersion;
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
  /** Data values for the PackageInstall (the addons manager passes the cluster's), as YAML. */
  values?: string;
  timeoutMs: number;
  /** Aborted on SIGINT/SIGTERM: the wait for the baseline ends at once. */
  signal?: AbortSignal;
  log?: (m: string) => void;
}

export interface Baseline {
  namespace: string;
  name: string;
  releasedVersion: string;
  image: string;
  /** Where the released source came from. */
  source: 'base-ref' | 'head';
  installedAt: string;
}

export async function installBaseline(o: BaselineOptions): Promise<Baseline> {
  const log = o.log ?? (() => undefined);
  const namespace = o.namespace ?? ADDONS_NAMESPACE;
  const serviceAccount = o.serviceAccount ?? `${o.loaded.name}-sa`;
  // The Package's own version: a version folder's name can disagree with it (a warning elsewhere).
  const released = o.loaded.pkg.pkg.spec.version;
  const tmp = await mkdtemp(join(tmpdir(), 'devpkg-baseline-'));
  try {
    let source: 'base-ref' | 'head' = 'head';
    let pkg: PackageResource = o.loaded.pkg;
    let bundleDir = join(o.root, o.loaded.path, 'bundle');
    if (o.baseRef && (await exportFolderAtRef(o.exec, o.root, o.baseRef, o.loaded.path, tmp))) {
      source = 'base-ref';
      const file = join(tmp, o.loaded.path, 'package.yaml');
      pkg = parsePackageFile(await readFile(file, 'utf8'), `${o.loaded.path}/package.yaml@${o.baseRef}`);
      bundleDir = join(tmp, o.loaded.path, 'bundle');
      log(`baseline: ${o.loaded.name} ${released} as of ${o.baseRef}`);
    } else {
      log(`baseline: ${o.loaded.path} does not exist at ${o.baseRef ?? 'the base ref'}; using the repository's version at head as ${released}`);
    }
    const bundle = bundleOf(o.registry, o.loaded.name, pkg.pkg.spec.version);
    const pushed = await pushBundle({
      bundleDir,
      repository: bundle.repository,
      tag: bundle.tag,
      pushCommand: o.pushCommand,
      cwd: o.root,
      env: { package: o.loaded.name, version: released },
      exec: o.exec,
      log,
    });
    const image = clusterImage(pushed.image, o.registry, o.clusterRegistry);
    const { pkg: releasedPkg } = deriveDevPackage(pkg, { version: pkg.pkg.spec.version, image, namespace, refName: o.refName });
    delete releasedPkg.metadata.annotations?.['devpkg.dev/derived-from'];
    for (const obj of installIdentity(namespace, serviceAccount)) await o.client.apply(obj);
    await o.client.apply(releasedPkg as unknown as KubernetesObject);
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
    await o.client.apply(addonsManagerPackageInstall({ namespace, name: o.loaded.name, refName: o.refName, serviceAccount, valuesSecret }));
    log(`baseline: waiting for PackageInstall ${namespace}/${o.loaded.name} to install ${pkg.pkg.spec.version}`);
    const outcome = await verifyPackageInstall({
      kc: o.kc,
      target: { namespace, name: o.loaded.name },
      expect: { version: pkg.pkg.spec.version, digest: pushed.digest },
      settleMs: 0,
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      log,
    });
    if (outcome.verdict !== 'won') {
      throw new DevpkgError(`the baseline (released ${o.loaded.name} ${pkg.pkg.spec.version}) did not install: ${outcome.verdict}: ${outcome.reason}`);
    }
    return { namespace, name: o.loaded.name, releasedVersion: pkg.pkg.spec.version, image, source, installedAt: outcome.decidedAt };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

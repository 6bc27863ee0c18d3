/**
 * The kind mode's cluster: kind (the runner's, or a pinned release checked against its published
 * sha256), a registry container on the kind network, and kapp-controller from its pinned release
 * manifest, checked against the release's checksums.txt (and an explicit sha256 when given).
 */
import { createHash } from 'node:crypto';
import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKindRegistry, type KindRegistry } from '../bundle/index.js';
import type { CleanupList } from '../cleanup.js';
import { DevpkgError } from '../errors.js';
import { Docker } from '../tools/docker.js';
import type { ExecFn } from '../tools/exec.js';
import { Kind } from '../tools/kind.js';
import { Kubectl } from '../tools/kubectl.js';

export const DEFAULT_KAPP_CONTROLLER_VERSION = 'v0.51.0';
export const KAPP_CONTROLLER_RELEASES = 'https://github.com/carvel-dev/kapp-controller/releases/download';
export const KIND_RELEASES = 'https://github.com/kubernetes-sigs/kind/releases/download';

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The sha256 of `file` in a `sha256sum`-style listing (`<hex>  <name>` or `<hex> *<name>`); pure. */
export function checksumFor(listing: string, file: string): string | undefined {
  for (const line of listing.split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(?:\.\/)?(\S+)\s*$/.exec(line.trim());
    if (m && (m[2] === file || m[2]!.endsWith(`/${file}`))) return m[1];
  }
  return undefined;
}

/** Throws unless `data` has the expected sha256 (pure). */
export function checkSha256(what: string, data: string | Uint8Array, expected: string): void {
  const got = sha256(data);
  if (got !== expected.toLowerCase()) {
    throw new DevpkgError(`${what}: sha256 ${got} does not match the expected ${expected}; refusing to use it`);
  }
}

/** `v0.51.0` or `0.51.0` -> `v0.51.0`; rejects anything else (pure). */
export function normalizeReleaseVersion(v: string, what: string): string {
  const t = v.trim();
  if (!/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(t)) throw new DevpkgError(`${what}: "${v}" is not a release version such as v0.51.0`, { exitCode: 2 });
  return t.startsWith('v') ? t : `v${t}`;
}

type Fetch = typeof fetch;

async function download(fetchFn: Fetch, url: string): Promise<Uint8Array> {
  const res = await fetchFn(url, { redirect: 'follow' });
  if (!res.ok) throw new DevpkgError(`download ${url}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

/**
 * kapp-controller's release manifest for `version`, verified: against `expectedSha256` when
 * given, and always against the release's own checksums.txt when it lists release.yml.
 */
export async function fetchKappControllerManifest(version: string, opts: { expectedSha256?: string; fetch?: Fetch } = {}): Promise<string> {
  const f = opts.fetch ?? fetch;
  const v = normalizeReleaseVersion(version, 'kapp-controller-version');
  const data = await download(f, `${KAPP_CONTROLLER_RELEASES}/${v}/release.yml`);
  let checked = false;
  if (opts.expectedSha256) {
    checkSha256(`kapp-controller ${v} release.yml`, data, opts.expectedSha256);
    checked = true;
  }
  try {
    const sums = new TextDecoder().decode(await download(f, `${KAPP_CONTROLLER_RELEASES}/${v}/checksums.txt`));
    const want = checksumFor(sums, 'release.yml');
    if (want) {
      checkSha256(`kapp-controller ${v} release.yml (checksums.txt)`, data, want);
      checked = true;
    }
  } catch (err) {
    if (err instanceof DevpkgError && /sha256/.test(err.message)) throw err;
  }
  if (!checked) {
    throw new DevpkgError(`kapp-controller ${v}: the release publishes no checksum for release.yml; give its sha256 (kapp-controller-sha256) to use it`);
  }
  return new TextDecoder().decode(data);
}

/** kind `version` (e.g. v0.24.0) for linux-amd64, checked against its published .sha256sum. */
export async function installKind(version: string, exec: ExecFn, cleanup: CleanupList, opts: { fetch?: Fetch } = {}): Promise<Kind> {
  const f = opts.fetch ?? fetch;
  const v = normalizeReleaseVersion(version, 'kind-version');
  const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
  const asset = `kind-linux-${arch}`;
  const bin = await download(f, `${KIND_RELEASES}/${v}/${asset}`);
  const sums = new TextDecoder().decode(await download(f, `${KIND_RELEASES}/${v}/${asset}.sha256sum`));
  const want = checksumFor(sums, asset);
  if (!want) throw new DevpkgError(`kind ${v}: ${asset}.sha256sum does not list ${asset}`);
  checkSha256(`kind ${v} ${asset}`, bin, want);
  const dir = await mkdtemp(join(tmpdir(), 'devpkg-kind-'));
  cleanup.record({ kind: 'temp-dir', path: dir });
  const path = join(dir, 'kind');
  await writeFile(path, bin);
  await chmod(path, 0o755);
  return Kind.create(exec, path);
}

export interface KindClusterOptions {
  exec: ExecFn;
  cleanup: CleanupList;
  name: string;
  kindVersion?: string;
  nodeImage?: string;
  kappControllerVersion?: string;
  kappControllerSha256?: string;
  registryPort?: number;
  log: (m: string) => void;
  onPhase?: (name: string, at: string) => void;
}

export interface KindCluster {
  name: string;
  kubeconfig: string;
  registry: KindRegistry;
  kappControllerVersion: string;
}

export async function createKindCluster(o: KindClusterOptions): Promise<KindCluster> {
  const phase = (n: string) => o.onPhase?.(n, new Date().toISOString());
  let kind = await Kind.create(o.exec).catch(() => undefined);
  if (o.kindVersion && (!kind || `v${kind.version}` !== normalizeReleaseVersion(o.kindVersion, 'kind-version'))) {
    o.log(`installing kind ${o.kindVersion} (runner has ${kind ? `v${kind.version}` : 'none'})`);
    kind = await installKind(o.kindVersion, o.exec, o.cleanup);
  }
  if (!kind) throw new DevpkgError('kind is not on PATH; set input kind-version to install a pinned release');
  const dir = await mkdtemp(join(tmpdir(), 'devpkg-kind-cluster-'));
  o.cleanup.record({ kind: 'temp-dir', path: dir });
  const kubeconfig = join(dir, 'kubeconfig');

  o.cleanup.record({ kind: 'kind-cluster', name: o.name, kubeconfig });
  o.log(`kind ${kind.version}: creating cluster ${o.name}${o.nodeImage ? ` (${o.nodeImage})` : ''}`);
  await kind.createCluster({ name: o.name, image: o.nodeImage || undefined, kubeconfig, wait: '180s' }, (c) => o.log(c.trimEnd()));
  phase('kind cluster');

  const docker = await Docker.create(o.exec);
  const registry = await startKindRegistry(docker, o.cleanup, { network: 'kind', hostPort: o.registryPort, log: o.log });
  phase('registry');

  const version = normalizeReleaseVersion(o.kappControllerVersion || DEFAULT_KAPP_CONTROLLER_VERSION, 'kapp-controller-version');
  const manifest = await fetchKappControllerManifest(version, { expectedSha256: o.kappControllerSha256 });
  const file = join(dir, `kapp-controller-${version}.yml`);
  await writeFile(file, manifest);
  const kubectl = await Kubectl.create(o.exec);
  o.log(`installing kapp-controller ${version}`);
  await kubectl.applyFile({ kubeconfig, file });
  await kubectl.rolloutStatus({ kubeconfig, namespace: 'kapp-controller', resource: 'deployment/kapp-controller', timeout: '300s' });
  // Packages are served by kapp-controller's aggregated API; wait until it answers.
  await kubectl.wait({ kubeconfig, resource: 'apiservice/v1alpha1.data.packaging.carvel.dev', for: 'condition=Available', timeout: '180s' });
  phase('kapp-controller');
  return { name: o.name, kubeconfig, registry, kappControllerVersion: version };
}

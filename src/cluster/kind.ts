/**
 * The kind mode's cluster: kind (pinned, from the tool cache), the cluster made from the user's
 * kind config merged with kind's local-registry settings, a registry container on the kind
 * network, and kapp-controller from its release manifest (downloaded and checked against the
 * release's checksums.txt or an explicit sha256, or a file/URL given for mirrors and air-gapped
 * runners). Every step is named, so a failure says where setup stopped.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { startKindRegistry, type KindRegistry } from '../bundle/index.js';
import type { CleanupList } from '../cleanup-list.js';
import { DevpkgError, errorMessage, UsageError } from '../errors.js';
import { checkSha256 } from '../tools/checksum.js';
import { Docker } from '../tools/docker.js';
import type { ExecFn } from '../tools/exec.js';
import { Kind } from '../tools/kind.js';
import { fetchWithRetry } from '../tools/download.js';
import { checksumFor, findCached, GITHUB, installPinnedTool, releasePlatform, type InstallPolicy, type ToolCacheApi } from '../tools/toolcache.js';
import { localRegistryHostingConfigMap, mergeKindConfig, registryHostsDir, registryHostsToml, type MergedKindConfig } from './kind-config.js';
import type { Need } from '../tools/needs.js';

export { checksumFor } from '../tools/toolcache.js';

/**
 * Defaults known to work together (docs/how-it-works.md "Kind mode"): kind v0.33.0 and the node
 * image its release notes name as default (Kubernetes v1.37.0, pinned by digest), and
 * kapp-controller v0.51.0, run by the kind-mode integration test on Kubernetes v1.37.2.
 */
export const DEFAULT_KIND_VERSION = 'v0.33.0';
export const DEFAULT_KIND_NODE_IMAGE = 'kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5';
export const DEFAULT_KAPP_CONTROLLER_VERSION = 'v0.51.0';
/** distribution v3 (what kind's local-registry docs run), pinned by digest. */
export const DEFAULT_REGISTRY_IMAGE = 'docker.io/library/registry:3@sha256:1be55279f18a2fe1a74edf2664cac61c1bea305b7b4642dab412e7affdcb3e33';
export const KAPP_CONTROLLER_RELEASES = 'https://github.com/carvel-dev/kapp-controller/releases/download';
export const KIND_RELEASES = `${GITHUB}/kubernetes-sigs/kind/releases/download`;
/** How to get kind by hand. */
export const KIND_HOW_TO = 'install it (https://kind.sigs.k8s.io/docs/user/quick-start/#installation, or go install sigs.k8s.io/kind@VERSION) and put it on PATH';

/** The steps of setting up the cluster, in order; a failure names its step. */
export type SetupStep = 'imgpkg' | 'kind' | 'docker' | 'kind config' | 'kapp-controller manifest' | 'kind cluster' | 'registry' | 'kapp-controller';

export class SetupError extends DevpkgError {
  constructor(
    readonly step: SetupStep,
    cause: unknown,
  ) {
    super(`${step}: ${errorMessage(cause)}`, { cause, exitCode: cause instanceof DevpkgError ? cause.exitCode : 1 });
  }
}

async function step<T>(name: SetupStep, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw err instanceof SetupError ? err : new SetupError(name, err);
  }
}

/** `v0.51.0` or `0.51.0` -> `v0.51.0`; rejects anything else (pure). */
export function normalizeReleaseVersion(v: string, what: string): string {
  const t = v.trim();
  if (!/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(t)) throw new DevpkgError(`${what}: "${v}" is not a release version such as v0.51.0`, { exitCode: 2 });
  return t.startsWith('v') ? t : `v${t}`;
}

/** The node image for a kind version: the pinned default only with the kind it was built for (pure). */
export function nodeImageFor(kindVersion: string, given?: string): string | undefined {
  if (given) return given;
  return kindVersion === DEFAULT_KIND_VERSION ? DEFAULT_KIND_NODE_IMAGE : undefined;
}

type Fetch = typeof fetch;

export interface ManifestSource {
  /** kapp-controller-manifest: a file (relative to cwd) or an http(s) URL. */
  manifest?: string;
  /** kapp-controller-version: the release to download when no manifest is given. */
  version?: string;
  /** kapp-controller-sha256. */
  sha256?: string;
  cwd?: string;
  fetch?: Fetch;
  sleep?: (ms: number) => Promise<void>;
  log?: (m: string) => void;
}

/**
 * kapp-controller's release manifest, verified. A release version or URL is checked against
 * `sha256` when given and against the checksums.txt beside it when that lists the file (from
 * v0.45.0 on); one of the two must exist. A local file is checked when a sha256 is given.
 */
export async function kappControllerManifest(o: ManifestSource): Promise<{ text: string; source: string }> {
  const given = o.manifest?.trim();
  if (given && !/^https?:\/\//i.test(given)) {
    const file = resolve(o.cwd ?? process.cwd(), given);
    let data: Buffer;
    try {
      data = await readFile(file);
    } catch (err) {
      throw new UsageError(`kapp-controller-manifest: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? errorMessage(err)}; give a release manifest file or an http(s) URL`);
    }
    if (o.sha256) checkSha256(`kapp-controller-manifest ${file}`, data, o.sha256);
    return { text: data.toString('utf8'), source: file };
  }
  const v = given ? undefined : normalizeReleaseVersion(o.version || DEFAULT_KAPP_CONTROLLER_VERSION, 'kapp-controller-version');
  const url = given ?? `${KAPP_CONTROLLER_RELEASES}/${v}/release.yml`;
  const what = v ? `kapp-controller ${v} release.yml` : `kapp-controller manifest ${url}`;
  const data = await fetchWithRetry(url, { fetch: o.fetch, sleep: o.sleep, log: o.log, what });
  let checked = false;
  if (o.sha256) {
    checkSha256(what, data, o.sha256);
    checked = true;
  }
  const name = url.slice(url.lastIndexOf('/') + 1);
  const sumsUrl = `${url.slice(0, url.lastIndexOf('/'))}/checksums.txt`;
  try {
    const want = checksumFor(new TextDecoder().decode(await fetchWithRetry(sumsUrl, { fetch: o.fetch, sleep: o.sleep, log: o.log, attempts: 2 })), name);
    if (want) {
      checkSha256(`${what} (checksums.txt)`, data, want);
      checked = true;
    }
  } catch (err) {
    if (err instanceof DevpkgError && /sha256/.test(err.message)) throw err;
    // No checksums.txt (releases before v0.45.0 list no release.yml; a mirror may have none).
  }
  if (!checked) {
    throw new DevpkgError(
      `${what}: no checksum published for ${name} (kapp-controller lists release.yml in checksums.txt from v0.45.0 on); ` +
        'give its sha256 as kapp-controller-sha256 (CLI: --kapp-controller-sha256) to use it',
    );
  }
  return { text: new TextDecoder().decode(data), source: url };
}

export interface EnsureKindOptions {
  version?: string;
  /** kind-sha256: the sum of the kind binary (instead of the release's .sha256sum). */
  sha256?: string;
  /** Where that sum came from, when not kind-sha256 (a tool-checksums file). */
  sha256From?: string;
  exec: ExecFn;
  log?: (m: string) => void;
  toolCache?: ToolCacheApi;
  /** Base of the release downloads (tests: a local server); default from install.github. */
  releases?: string;
  /** May devpkg install it when missing (default yes). */
  install?: InstallPolicy;
  fetch?: Fetch;
  platform?: string;
  arch?: string;
}

/**
 * kind at the pinned (or requested) version: the one on PATH when it reports that version, else
 * the release binary from the tool cache, downloaded and checked against the release's
 * .sha256sum when missing. The returned Kind has an absolute path, which the post step reuses.
 */
export async function ensureKind(o: EnsureKindOptions): Promise<Kind> {
  const want = normalizeReleaseVersion(o.version || DEFAULT_KIND_VERSION, 'kind-version');
  const onPath = await Kind.create(o.exec).catch(() => undefined);
  if (onPath && `v${onPath.version}` === want) {
    const { findOnPath } = await import('../tools/carvel.js');
    const path = (await findOnPath('kind')) ?? onPath.path;
    o.log?.(`kind ${want} on PATH (${path})`);
    return Kind.create(o.exec, path);
  }
  const platform = releasePlatform(o.platform ?? process.platform, o.arch ?? process.arch);
  const asset = `kind-${platform}`;
  if (o.install?.refuse && !(await findCached('kind', want, { toolCache: o.toolCache, arch: o.arch }))) {
    throw new DevpkgError(`kind ${want}: ${onPath ? `PATH has v${onPath.version}` : 'not on PATH'} (and --no-install: devpkg does not install it); ${KIND_HOW_TO.replace('VERSION', want)}`);
  }
  const releases = o.releases ?? (o.install?.github ? `${o.install.github}/kubernetes-sigs/kind/releases/download` : KIND_RELEASES);
  const base = `${releases}/${want}`;
  o.log?.(`kind ${want}: ${onPath ? `PATH has v${onPath.version}` : 'not on PATH'}; installing the release into the tool cache`);
  // The user's sha256 (kind-sha256) replaces the listing published beside the binary.
  const sums = o.sha256 ? { sha256: o.sha256, sha256From: o.sha256From ?? 'kind-sha256, CLI: --kind-sha256' } : { sumsUrl: `${base}/${asset}.sha256sum`, sumsName: asset };
  const path = await installPinnedTool(
    { tool: 'kind', version: want, url: `${base}/${asset}`, ...sums },
    { toolCache: o.toolCache, fetch: o.fetch, log: o.log, arch: o.arch },
  );
  return Kind.create(o.exec, path);
}

/** The kind config file (relative to cwd) read and merged with devpkg's registry settings; a usage error naming the input when it cannot be. */
export async function readKindConfig(kindConfig: string | undefined, cwd: string): Promise<MergedKindConfig> {
  let text: string | undefined;
  if (kindConfig) {
    const file = resolve(cwd, kindConfig);
    text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`kind-config: cannot read ${file}: ${err.code ?? err.message}`);
    });
  }
  return mergeKindConfig(text, kindConfig ? `kind-config ${kindConfig}` : 'kind-config');
}

/**
 * The files kind mode's inputs name, checked before anything starts: the kind config (read,
 * parsed, merged) and kapp-controller's manifest when it is a file (read, its sha256 when
 * given). A URL or a release version is fetched later, when the cluster is made.
 */
export async function checkKindFiles(o: { kindConfig?: string; kappControllerManifest?: string; kappControllerSha256?: string; cwd: string }): Promise<void> {
  await readKindConfig(o.kindConfig, o.cwd);
  const m = o.kappControllerManifest?.trim();
  if (m && !/^https?:\/\//i.test(m)) await kappControllerManifest({ manifest: m, sha256: o.kappControllerSha256, cwd: o.cwd });
}

/** kind at the wanted version as a need of the kind mode's preflight (on PATH at that version, or in the tool cache). */
export function kindNeed(o: { version?: string; sha256?: string; sha256From?: string; exec: ExecFn; install?: InstallPolicy; log?: (m: string) => void }): Need {
  const want = normalizeReleaseVersion(o.version || DEFAULT_KIND_VERSION, 'kind-version');
  return {
    what: `kind ${want}`,
    missing: async () => {
      const onPath = await Kind.create(o.exec).catch(() => undefined);
      if (onPath && `v${onPath.version}` === want) return undefined;
      if (await findCached('kind', want)) return undefined;
      return onPath ? `PATH has v${onPath.version}` : 'not on PATH';
    },
    install: async () => void (await ensureKind({ version: want, sha256: o.sha256, sha256From: o.sha256From, exec: o.exec, log: o.log, install: o.install })),
    howTo: KIND_HOW_TO.replace('VERSION', want),
  };
}

/** A running Docker daemon as a need of the kind mode's preflight. */
export function dockerNeed(exec: ExecFn): Need {
  return {
    what: 'docker',
    missing: async () => {
      try {
        await Docker.create(exec);
        return undefined;
      } catch (err) {
        const why = errorMessage(err);
        return /not found on PATH/.test(why) ? 'not on PATH' : why.replace(/; the kind mode needs a running Docker daemon$/, '');
      }
    },
    howTo: 'start the Docker daemon, or install Docker (https://docs.docker.com/engine/install/); kind mode runs its cluster and registry in containers',
  };
}

export interface KindClusterOptions {
  exec: ExecFn;
  cleanup: CleanupList;
  name: string;
  kindVersion?: string;
  /** kind-sha256 (with kindVersion), and where it came from when not that input. */
  kindSha256?: string;
  kindSha256From?: string;
  nodeImage?: string;
  /** kind-config: a kind config file merged with devpkg's registry settings. */
  kindConfig?: string;
  registryImage?: string;
  /** Host port of the registry (default 5001; a busy port falls back to a free one). */
  registryPort?: number;
  kappControllerVersion?: string;
  kappControllerSha256?: string;
  kappControllerManifest?: string;
  /** Relative paths (kind-config, a manifest file) resolve here. */
  cwd?: string;
  log: (m: string) => void;
  onPhase?: (name: string, at: string) => void;
  /** May a missing kind be installed (default yes). */
  install?: InstallPolicy;
  /** Injected for tests. */
  ensureKind?: (o: EnsureKindOptions) => Promise<Kind>;
  fetch?: Fetch;
  /** Applies the manifest and waits for kapp-controller (default: applyAndWait on the cluster). */
  installManifest?: (kc: KubeConfig, text: string, log: (m: string) => void) => Promise<void>;
}

export interface KindCluster {
  name: string;
  /** The cluster's temp folder (kubeconfig, config), in the cleanup list: scratch for the run goes here. */
  dir: string;
  kubeconfig: string;
  registry: KindRegistry;
  kappControllerSource: string;
  kind: Kind;
}

export async function createKindCluster(o: KindClusterOptions): Promise<KindCluster> {
  const phase = (n: string) => o.onPhase?.(n, new Date().toISOString());
  const cwd = o.cwd ?? process.cwd();
  // Everything that can be checked without a cluster comes first: a bad input costs no cluster.
  const kind = await step('kind', () => (o.ensureKind ?? ensureKind)({ version: o.kindVersion, sha256: o.kindSha256, sha256From: o.kindSha256From, exec: o.exec, log: o.log, fetch: o.fetch, install: o.install }));
  const docker = await step('docker', () => Docker.create(o.exec));
  const config = await step('kind config', async () => {
    const merged = await readKindConfig(o.kindConfig, cwd);
    merged.notes.forEach((n) => o.log(n));
    return merged.text;
  });
  const manifest = await step('kapp-controller manifest', () =>
    kappControllerManifest({ manifest: o.kappControllerManifest, version: o.kappControllerVersion, sha256: o.kappControllerSha256, cwd, fetch: o.fetch, log: o.log }),
  );

  const dir = await mkdtemp(join(tmpdir(), 'devpkg-kind-cluster-'));
  o.cleanup.record({ kind: 'temp-dir', path: dir });
  const kubeconfig = join(dir, 'kubeconfig');
  const configFile = join(dir, 'kind-config.yaml');
  await writeFile(configFile, config);
  const image = nodeImageFor(`v${kind.version}`, o.nodeImage);

  await step('kind cluster', async () => {
    o.cleanup.record({ kind: 'kind-cluster', name: o.name, kubeconfig, binary: kind.path });
    o.log(`kind v${kind.version}: creating cluster ${o.name} (${image ?? "kind's default node image"})`);
    await kind.createCluster({ name: o.name, image, config: configFile, kubeconfig, wait: '180s' }, (c) => o.log(c.trimEnd()));
  });
  phase('kind cluster');

  const { loadKubeConfig } = await import('./kubeconfig.js');
  const kc = await loadKubeConfig(kubeconfig);
  const registry = await step('registry', async () => {
    const r = await startKindRegistry(docker, o.cleanup, {
      name: `${o.name}-registry`,
      network: 'kind',
      hostPort: o.registryPort,
      image: o.registryImage || DEFAULT_REGISTRY_IMAGE,
      log: o.log,
      fetch: o.fetch,
    });
    // kind's local-registry pattern: every node's containerd sends localhost:<port> to the container.
    const hosts = join(dir, 'hosts.toml');
    await writeFile(hosts, registryHostsToml(r.containerName));
    for (const node of await kind.nodes(o.name)) {
      await docker.execIn(node, ['mkdir', '-p', registryHostsDir(r.pushHost)]);
      await docker.copyTo(hosts, node, `${registryHostsDir(r.pushHost)}/hosts.toml`);
    }
    const { ClusterClient } = await import('./client.js');
    await (await ClusterClient.create(kc)).apply(localRegistryHostingConfigMap(r.pushHost, r.clusterHost) as never);
    return r;
  });
  phase('registry');

  await step('kapp-controller', async () => {
    o.log(`installing kapp-controller from ${manifest.source}`);
    const install = o.installManifest ?? (async (k, text, log) => (await import('./manifest.js')).applyAndWait(k, text, { log }));
    await install(kc, manifest.text, o.log);
  });
  phase('kapp-controller');
  return { name: o.name, dir, kubeconfig, registry, kappControllerSource: manifest.source, kind };
}

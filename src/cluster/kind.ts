/**
 * The kind mode's cluster: kind (pinned, from the tool cache), the cluster made from the user's
 * kind config merged with kind's local-registry settings, a registry container on the kind
 * network, and kapp-controller from its release manifest (downloaded and checked against the
 * release's checksums.txt or an explicit sha256, or a file/URL given for mirrors and air-gapped
 * runners). Every step is named, so a failure says where setup stopped.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as wait } from 'node:timers/promises';
import { join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { clusterHostFor, startKindRegistry, type KindRegistry } from '../bundle/index.js';
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
import { ownerLabels, type RunOwner } from './leftovers.js';
import { writeOwnerFile } from './sweep.js';

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
export type SetupStep = 'imgpkg' | 'kind' | 'docker' | 'kind config' | 'network' | 'kapp-controller manifest' | 'kind cluster' | 'api server' | 'registry' | 'kapp-controller';

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
  /**
   * The run's own docker network (kind mode: the cluster's name), created and labelled by devpkg
   * before the cluster and the registry, and given to kind (KIND_EXPERIMENTAL_DOCKER_NETWORK); so
   * two runs share no network and a run's network goes with it. Default: kind's shared `kind`.
   */
  network?: string;
  /** The run that makes these things: its labels go on the network and the registry, its owner file in the temp folder. */
  owner?: RunOwner;
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

/** What the cluster steps share once kind, docker and the kind config are checked. */
export interface KindPrep {
  kind: Kind;
  docker: Docker;
  /** The cluster's temp folder, in the cleanup list. */
  dir: string;
  kubeconfig: string;
  configFile: string;
  image?: string;
}

/**
 * Everything that needs no cluster and no network, checked first so a bad input costs no
 * cluster: kind, docker, the kind config (written into the cluster's folder, recorded for cleanup).
 */
export async function prepareKindCluster(o: KindClusterOptions): Promise<KindPrep> {
  const cwd = o.cwd ?? process.cwd();
  const kind = await step('kind', () => (o.ensureKind ?? ensureKind)({ version: o.kindVersion, sha256: o.kindSha256, sha256From: o.kindSha256From, exec: o.exec, log: o.log, fetch: o.fetch, install: o.install }));
  const docker = await step('docker', () => Docker.create(o.exec));
  const config = await step('kind config', async () => {
    const merged = await readKindConfig(o.kindConfig, cwd);
    merged.notes.forEach((n) => o.log(n));
    return merged.text;
  });
  const dir = await mkdtemp(join(tmpdir(), 'devpkg-kind-cluster-'));
  o.cleanup.record({ kind: 'temp-dir', path: dir });
  if (o.owner) await writeOwnerFile(dir, o.owner, o.name);
  const configFile = join(dir, 'kind-config.yaml');
  await writeFile(configFile, config);
  if (o.network) {
    const network = o.network;
    await step('network', async () => {
      o.cleanup.record({ kind: 'docker-network', name: network });
      await docker.networkCreate(network, o.owner ? ownerLabels(o.owner, o.name) : {});
    });
  }
  return { kind, docker, dir, kubeconfig: join(dir, 'kubeconfig'), configFile, image: nodeImageFor(`v${kind.version}`, o.nodeImage) };
}

/** kapp-controller's manifest (downloaded and checked, or the file given). */
export function fetchKappControllerManifest(o: KindClusterOptions): Promise<{ text: string; source: string }> {
  return step('kapp-controller manifest', () =>
    kappControllerManifest({ manifest: o.kappControllerManifest, version: o.kappControllerVersion, sha256: o.kappControllerSha256, cwd: o.cwd ?? process.cwd(), fetch: o.fetch, log: o.log }),
  );
}

/**
 * `kind create cluster`, recorded for cleanup first. `wait`: kind's own wait for the control
 * plane to be Ready; kind mode passes 0s (the API server answers once kind returns; the node
 * gets Ready while kapp-controller is applied and the bundles are pushed).
 */
export async function startKindCluster(o: KindClusterOptions, prep: KindPrep, wait = '180s'): Promise<void> {
  await step('kind cluster', async () => {
    o.cleanup.record({ kind: 'kind-cluster', name: o.name, kubeconfig: prep.kubeconfig, binary: prep.kind.path });
    o.log(`kind v${prep.kind.version}: creating cluster ${o.name} (${prep.image ?? "kind's default node image"})`);
    const env = o.network ? { KIND_EXPERIMENTAL_DOCKER_NETWORK: o.network } : undefined;
    await prep.kind.createCluster({ name: o.name, image: prep.image, config: prep.configFile, kubeconfig: prep.kubeconfig, wait }, (c) => o.log(c.trimEnd()), env);
  });
}

/** The API server answers (GET /version), with a bounded wait that backs off (100 ms to 1 s). */
export async function waitForApiServer(kc: KubeConfig, o: { timeoutMs?: number; signal?: AbortSignal; sleep?: (ms: number) => Promise<void> } = {}): Promise<void> {
  await step('api server', async () => {
    const k8s = await import('@kubernetes/client-node');
    const api = kc.makeApiClient(k8s.VersionApi);
    const sleep = o.sleep ?? ((ms: number) => wait(ms, undefined, o.signal ? { signal: o.signal } : {}).catch(() => undefined));
    const deadline = Date.now() + (o.timeoutMs ?? 60_000);
    for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
      try {
        if (o.signal?.aborted) throw new DevpkgError('aborted');
        await api.getCode();
        return;
      } catch (err) {
        if (o.signal?.aborted) throw new DevpkgError('stopped: another step failed or the run was interrupted');
        if (Date.now() + delay > deadline) throw new DevpkgError(`the API server did not answer in ${Math.round((o.timeoutMs ?? 60_000) / 1000)}s: ${errorMessage(err)}`);
        await sleep(delay);
      }
    }
  });
}

/**
 * The registry container, started on `network`: the cluster's (kind mode: the run's own, which
 * exists before the cluster), or another one (docker's default) to join the cluster's later.
 */
export function startClusterRegistry(o: KindClusterOptions, prep: KindPrep, network = o.network ?? 'kind', signal?: AbortSignal): Promise<KindRegistry> {
  return step('registry', () =>
    startKindRegistry(prep.docker, o.cleanup, {
      name: `${o.name}-registry`,
      network,
      hostPort: o.registryPort,
      image: o.registryImage || DEFAULT_REGISTRY_IMAGE,
      log: o.log,
      fetch: o.fetch,
      ...(o.owner ? { labels: ownerLabels(o.owner, o.name) } : {}),
      // Its cluster address is read once the cluster is up (connectClusterRegistry): the pushes need none.
      ...(network === 'kind' && !o.network ? {} : { attachLater: true }),
      ...(signal ? { signal } : {}),
    }),
  );
}

/**
 * kind's local-registry pattern once the cluster exists: the registry joins the kind network
 * (its address there is what the cluster pulls from), every node's containerd sends
 * localhost:<port> to the container, and the local-registry-hosting ConfigMap says so.
 */
export async function connectClusterRegistry(o: KindClusterOptions, prep: KindPrep, kc: KubeConfig, r: KindRegistry): Promise<KindRegistry> {
  return step('registry', async () => {
    let registry = r;
    const net = o.network ?? 'kind';
    if (!r.clusterHost) {
      const state = await prep.docker.inspectContainer(r.containerName);
      if (!state?.networks[net]) await prep.docker.networkConnect(net, r.containerName);
      const ip = state?.networks[net] ?? (await prep.docker.inspectContainer(r.containerName))?.networks[net];
      registry = { ...r, clusterHost: clusterHostFor(ip, net, r.containerName) };
    }
    const hosts = join(prep.dir, 'hosts.toml');
    await writeFile(hosts, registryHostsToml(registry.containerName));
    await Promise.all(
      (await prep.kind.nodes(o.name)).map(async (node) => {
        await prep.docker.execIn(node, ['mkdir', '-p', registryHostsDir(registry.pushHost)]);
        await prep.docker.copyTo(hosts, node, `${registryHostsDir(registry.pushHost)}/hosts.toml`);
      }),
    );
    const { ClusterClient } = await import('./client.js');
    await (await ClusterClient.create(kc)).apply(localRegistryHostingConfigMap(registry.pushHost, registry.clusterHost) as never);
    o.log(`registry on the ${net} network: the cluster pulls from ${registry.clusterHost}`);
    return registry;
  });
}

/** kapp-controller applied and waited for (its Deployment available, its APIService answering). */
export async function installKappController(o: KindClusterOptions, kc: KubeConfig, manifest: { text: string; source: string }): Promise<void> {
  await step('kapp-controller', async () => {
    o.log(`installing kapp-controller from ${manifest.source}`);
    const install = o.installManifest ?? (async (k, text, log) => (await import('./manifest.js')).applyAndWait(k, text, { log, pollMs: 500 }));
    await install(kc, manifest.text, o.log);
  });
}

/** The steps one after another (the bootstrap tests' cluster); kind mode overlaps them (src/modes/kind.ts). */
export async function createKindCluster(o: KindClusterOptions): Promise<KindCluster> {
  const phase = (n: string) => o.onPhase?.(n, new Date().toISOString());
  const prep = await prepareKindCluster(o);
  const manifest = await fetchKappControllerManifest(o);
  await startKindCluster(o, prep);
  phase('kind cluster');
  const { loadKubeConfig } = await import('./kubeconfig.js');
  const kc = await loadKubeConfig(prep.kubeconfig);
  const registry = await connectClusterRegistry(o, prep, kc, await startClusterRegistry(o, prep));
  phase('registry');
  await installKappController(o, kc, manifest);
  phase('kapp-controller');
  return { name: o.name, dir: prep.dir, kubeconfig: prep.kubeconfig, registry, kappControllerSource: manifest.source, kind: prep.kind };
}

/**
 * Where a cluster pulls from a local registry that devpkg pushes to on localhost. kind's local
 * registry publishes itself in the `local-registry-hosting` ConfigMap (kube-public, KEP-1755):
 * `host` is where this machine pushes; `hostFromClusterNetwork`, when set, is where the cluster
 * reaches it. kind's documented script sets only `host`; the registry container on the `kind`
 * docker network that publishes that port then gives the address: its IPv4 there and its port
 * inside. It must be that IP (RFC1918): kapp-controller's fetch (go-containerregistry) speaks
 * plain HTTP only to localhost, loopback, *.local and RFC1918 hosts, so a container name means HTTPS.
 */
import { parse } from 'yaml';
import { isLoopbackHost, usesPlainHttp, type Registry } from '../bundle/reference.js';
import { errorMessage } from '../errors.js';
import type { Docker } from '../tools/docker.js';
import { pullAddressWarning } from '../verify/hints.js';

export const REGISTRY_HOSTING = { namespace: 'kube-public', name: 'local-registry-hosting', key: 'localRegistryHosting.v1' } as const;

/** LocalRegistryHostingV1, the fields devpkg reads. */
export interface RegistryHosting {
  host?: string;
  hostFromClusterNetwork?: string;
  hostFromContainerRuntime?: string;
}

/** Pure: the ConfigMap's `localRegistryHosting.v1` text; undefined when it is not that document. */
export function parseRegistryHosting(text: string | undefined): RegistryHosting | undefined {
  if (!text) return undefined;
  let doc: unknown;
  try {
    doc = parse(text);
  } catch {
    return undefined;
  }
  if (!doc || typeof doc !== 'object') return undefined;
  const d = doc as Record<string, unknown>;
  const str = (k: string) => (typeof d[k] === 'string' && d[k] ? (d[k] as string) : undefined);
  const out: RegistryHosting = {};
  for (const k of ['host', 'hostFromClusterNetwork', 'hostFromContainerRuntime'] as const) {
    const v = str(k);
    if (v) out[k] = v;
  }
  return out.host ? out : undefined;
}

/** The port of HOST:PORT (80 when none is given, as for a registry address without one). */
function portOf(host: string): string {
  const m = /:(\d+)$/.exec(host);
  return m ? m[1]! : '80';
}

/** Pure: whether two loopback registry addresses are the same port (localhost:5001 = 127.0.0.1:5001). */
export function sameLoopbackRegistry(a: string, b: string): boolean {
  return isLoopbackHost(a) && isLoopbackHost(b) && portOf(a) === portOf(b);
}

/** One line of `docker ps --format '{{.Names}}\t{{.Ports}}'`. */
export interface PublishedContainer {
  name: string;
  /** Host port -> container port, for ports published on loopback or all addresses. */
  ports: Array<{ hostPort: string; containerPort: string }>;
}

/** Pure: `docker ps --format '{{.Names}}\t{{.Ports}}'` (Ports like `127.0.0.1:5001->5000/tcp, ...`). */
export function parseDockerPs(out: string): PublishedContainer[] {
  const list: PublishedContainer[] = [];
  for (const line of out.split('\n')) {
    const [name, ports = ''] = line.split('\t');
    if (!name?.trim()) continue;
    const found: PublishedContainer['ports'] = [];
    for (const m of ports.matchAll(/(?:^|,\s*)(?:(127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\]|::):)?(\d+)->(\d+)\/tcp/g)) {
      found.push({ hostPort: m[2]!, containerPort: m[3]! });
    }
    list.push({ name: name.trim(), ports: found });
  }
  return list;
}

/** Pure: the container on the network that publishes the push address's port, and its port inside. */
export function registryContainerFor(push: string, containers: PublishedContainer[]): { name: string; containerPort: string } | undefined {
  const port = portOf(push);
  for (const c of containers) {
    const p = c.ports.find((x) => x.hostPort === port);
    if (p) return { name: c.name, containerPort: p.containerPort };
  }
  return undefined;
}

export interface PullAddressDeps {
  /** The ConfigMap's `localRegistryHosting.v1` text (undefined when there is none). */
  readHosting: () => Promise<string | undefined>;
  /** The docker CLI (undefined, or one that throws: docker is not asked). */
  docker?: () => Promise<Pick<Docker, 'psOnNetwork' | 'inspectContainer'>>;
  /** The docker network kind's nodes are on (default: the networks of the `nodes` containers, else kind). */
  network?: string;
  /**
   * The cluster's node names (kind names each node's container after it): the networks those
   * containers are on are where the registry container is looked for, so a cluster on a network
   * of its own (KIND_EXPERIMENTAL_DOCKER_NETWORK, devpkg kind's per-run network) is found too.
   */
  nodes?: () => Promise<string[]>;
  log?: (m: string) => void;
}

export interface PullAddress {
  /** HOST:PORT the cluster pulls from, an RFC1918 (plain HTTP) address. */
  host: string;
  /** How it was found, for the log. */
  how: string;
}

/**
 * Where the cluster pulls a local registry from when devpkg pushes to `push` on localhost and no
 * pull address was given; undefined when push is not loopback or nothing says (the caller warns).
 */
export async function discoverPullAddress(push: Registry, deps: PullAddressDeps): Promise<PullAddress | undefined> {
  if (!isLoopbackHost(push.host)) return undefined;
  const log = deps.log ?? (() => undefined);
  const where = `ConfigMap ${REGISTRY_HOSTING.namespace}/${REGISTRY_HOSTING.name}`;
  let hosting: RegistryHosting | undefined;
  try {
    hosting = parseRegistryHosting(await deps.readHosting());
  } catch (err) {
    log(`cannot read ${where}: ${errorMessage(err)}`);
  }
  if (!hosting) {
    log(`no ${where} (KEP-1755) names a local registry for this cluster`);
    return undefined;
  }
  if (!sameLoopbackRegistry(hosting.host!, push.host)) {
    log(`${where} names ${hosting.host}, not ${push.host}; not using it`);
    return undefined;
  }
  const fromCluster = hosting.hostFromClusterNetwork;
  if (fromCluster && usesPlainHttp(fromCluster) && !isLoopbackHost(fromCluster)) {
    return { host: fromCluster, how: `hostFromClusterNetwork in ${where}` };
  }
  if (!deps.docker) return undefined;
  try {
    const docker = await deps.docker();
    const networks = deps.network ? [deps.network] : await nodeNetworks(docker, deps, log);
    let found: { c: { name: string; containerPort: string }; network: string } | undefined;
    for (const network of networks) {
      const c = registryContainerFor(push.host, parseDockerPs(await docker.psOnNetwork(network)));
      if (c) {
        found = { c, network };
        break;
      }
    }
    if (!found) {
      const on = networks.length === 1 ? `the docker network ${networks[0]}` : `the docker networks ${networks.join(', ')}`;
      log(`${where} names ${hosting.host}, but no container on ${on} publishes its port`);
      return undefined;
    }
    const { c, network } = found;
    const ip = (await docker.inspectContainer(c.name))?.networks[network];
    const host = `${ip}:${c.containerPort}`;
    if (!ip || !usesPlainHttp(host) || isLoopbackHost(host)) {
      log(`registry container ${c.name} has no private (RFC1918) IPv4 on the docker network ${network} (${ip ?? 'none'}); kapp-controller would use HTTPS`);
      return undefined;
    }
    return { host, how: `${where} names ${hosting.host}; container ${c.name} publishes that port and is ${ip} on the docker network ${network}` };
  } catch (err) {
    log(`cannot ask docker for the registry container: ${errorMessage(err)}`);
    return undefined;
  }
}

/**
 * The docker networks the cluster's node containers are on (sorted, `kind` first); `kind` when
 * the nodes are not known or no container is named after one (not a kind cluster).
 */
async function nodeNetworks(docker: Pick<Docker, 'inspectContainer'>, deps: PullAddressDeps, log: (m: string) => void): Promise<string[]> {
  let nodes: string[] = [];
  try {
    nodes = deps.nodes ? await deps.nodes() : [];
  } catch (err) {
    log(`cannot list the cluster's nodes: ${errorMessage(err)}; looking on the docker network kind`);
  }
  const found = new Set<string>();
  for (const node of nodes) for (const n of Object.keys((await docker.inspectContainer(node))?.networks ?? {})) found.add(n);
  return found.size ? [...found].sort((a, b) => Number(b === 'kind') - Number(a === 'kind') || a.localeCompare(b)) : ['kind'];
}

/**
 * The pull address of a run: `pull` when given; else, when `push` is on localhost, the local
 * registry's address as the cluster reaches it (discoverPullAddress). A localhost address left
 * for the cluster becomes the warning (pullAddressWarning) the caller shows.
 */
export async function resolvePullRegistry(
  push: Registry,
  pull: Registry | undefined,
  o: PullAddressDeps & { names: { push: string; pull: string } },
): Promise<{ clusterRegistry?: Registry; warning?: string }> {
  if (!pull) {
    const found = await discoverPullAddress(push, o);
    if (found) {
      o.log?.(`the cluster pulls from ${found.host} (${o.names.pull} not set; ${found.how})`);
      return { clusterRegistry: { host: found.host, path: '' } };
    }
  }
  return { clusterRegistry: pull, warning: pullAddressWarning(push, pull, o.names) };
}

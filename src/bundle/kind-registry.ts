import { setTimeout as wait } from 'node:timers/promises';
import type { CleanupList } from '../cleanup-list.js';
import { DevpkgError, errorMessage } from '../errors.js';
import type { Docker } from '../tools/docker.js';
import { usesPlainHttp } from './reference.js';
import { RegistryClient } from './registry.js';

export interface KindRegistryOptions {
  /** Container name; default devpkg-registry. */
  name?: string;
  /** Port on 127.0.0.1 for pushes from the runner; default 5001. */
  hostPort?: number;
  /** Docker network kind's nodes are on; default kind. */
  network?: string;
  image?: string;
  /** How long to wait for the registry to answer; default 30 s. */
  readyTimeoutMs?: number;
  log?: (m: string) => void;
  /** Injected for tests. */
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  /**
   * Started before the cluster's network exists (kind mode starts both at once): no cluster
   * address yet (clusterHost ''); connectClusterRegistry joins it to the kind network later.
   */
  attachLater?: boolean;
  /** Ends the wait for /v2/ (another step failed, or the run was interrupted). */
  signal?: AbortSignal;
  /** Labels naming the run that made the container (cluster/leftovers.ts). */
  labels?: Readonly<Record<string, string>>;
}

export interface KindRegistry {
  /** Where the runner pushes: `localhost:<hostPort>`. */
  pushHost: string;
  /** How kapp-controller in the cluster reaches the same registry: `<IPv4 on kind>:5000` ('' until attached). */
  clusterHost: string;
  containerName: string;
  /** False when an already running container of that name was reused (and is not cleaned up). */
  created: boolean;
}

const REGISTRY_PORT = 5000;

/**
 * The address the cluster uses for the registry container. It must be the container's IPv4 on
 * the kind network: go-containerregistry (inside kapp-controller) speaks plain HTTP only to
 * localhost, loopback, *.local and RFC1918 hosts, so a container name would mean HTTPS.
 */
export function clusterHostFor(ip: string | undefined, network: string, containerName: string): string {
  if (!ip) {
    throw new DevpkgError(`container ${containerName} has no IPv4 address on the docker network "${network}"; is it connected to it?`);
  }
  const host = `${ip}:${REGISTRY_PORT}`;
  if (!usesPlainHttp(host)) {
    throw new DevpkgError(
      `container ${containerName} has address ${ip} on "${network}", which is not an RFC1918 address; ` +
        'kapp-controller would use HTTPS for it. Use a docker network with a private subnet (kind\'s default is 172.18.0.0/16)',
    );
  }
  return host;
}

/**
 * Starts (or reuses) a registry container on the kind network for the kind mode. When the default
 * host port (5001) is taken, docker picks a free one: the push address says which. The cleanup
 * item is recorded BEFORE the container is created, so a run that dies halfway still removes it.
 */
export async function startKindRegistry(docker: Docker, cleanup: CleanupList, opts: KindRegistryOptions = {}): Promise<KindRegistry> {
  const name = opts.name ?? 'devpkg-registry';
  let hostPort = opts.hostPort ?? 5001;
  const network = opts.network ?? 'kind';
  const log = opts.log ?? (() => undefined);
  // Ends early on the signal (the loop then stops).
  const sleep = opts.sleep ?? ((ms: number) => wait(ms, undefined, opts.signal ? { signal: opts.signal } : {}).catch(() => undefined));

  let state = await docker.inspectContainer(name);
  let created = false;
  if (state && !state.running) {
    throw new DevpkgError(`a container named ${name} exists but is not running; remove it (docker rm -f ${name}) or choose another registry name`);
  }
  if (state) {
    log(`reusing the running registry container ${name}`);
  } else {
    cleanup.record({ kind: 'docker-container', name });
    log(`starting registry container ${name} on network ${network}, published on 127.0.0.1:${hostPort}`);
    try {
      await docker.runRegistry({ name, hostPort, network, image: opts.image, ...(opts.labels ? { labels: opts.labels } : {}) });
    } catch (err) {
      // Only the default port falls back; a port the caller chose is theirs to fix.
      if (opts.hostPort !== undefined || !/port \d+ is taken/.test(errorMessage(err))) throw err;
      await docker.removeContainer(name);
      log(`127.0.0.1:${hostPort} is taken; letting docker choose a free port`);
      await docker.runRegistry({ name, hostPort: 0, network, image: opts.image, ...(opts.labels ? { labels: opts.labels } : {}) });
      hostPort = await docker.publishedPort(name);
    }
    created = true;
    state = await docker.inspectContainer(name);
  }
  const clusterHost = opts.attachLater ? '' : clusterHostFor(state?.networks[network], network, name);
  const pushHost = `localhost:${hostPort}`;

  // registry:2 takes a moment to listen; wait until /v2/ answers on the published port.
  const client = new RegistryClient(pushHost, { plainHttp: true, timeoutMs: 2000, fetch: opts.fetch });
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    try {
      if (opts.signal?.aborted) throw new DevpkgError('aborted');
      await client.check('devpkg/ready', 'pull');
      break;
    } catch (err) {
      if (opts.signal?.aborted) throw new DevpkgError(`stopped waiting for the registry container ${name}: another step failed or the run was interrupted`);
      if (Date.now() + delay > deadline) {
        throw new DevpkgError(`the registry container ${name} did not answer on ${pushHost} in time: ${errorMessage(err)}`);
      }
      await sleep(delay);
    }
  }
  log(`registry ready: push to ${pushHost}${clusterHost ? `, the cluster pulls from ${clusterHost}` : ''}`);
  return { pushHost, clusterHost, containerName: name, created };
}

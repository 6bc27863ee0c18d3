import { DevpkgError } from '../errors.js';
import { execTool, type ExecFn, type ExecResult } from './exec.js';
import { askVersion, lastLines, VersionedTool } from './tool.js';

export interface RunRegistryOptions {
  name: string;
  /** Host port published on 127.0.0.1 (pushes from the runner go there). */
  hostPort: number;
  network: string;
  image?: string;
  /** Labels naming the run that made it (cluster/leftovers.ts). */
  labels?: Readonly<Record<string, string>>;
}

/** What `docker inspect` says about a container, reduced to what devpkg uses. */
export interface ContainerState {
  name: string;
  running: boolean;
  /** `running`, `exited`, `created`, ... */
  status?: string;
  exitCode?: number;
  /** When it stopped (ISO 8601), when it did. */
  finishedAt?: string;
  /** IPv4 address per network name. */
  networks: Record<string, string>;
}

// ---- argv builders (pure; tested table-style) ----

export const dockerArgs = {
  version: (): string[] => ['version', '--format', '{{.Server.Version}}'],
  /**
   * A registry:2 container that kind's nodes (and kapp-controller) reach on the `kind` network
   * and the runner reaches on 127.0.0.1:<hostPort>. Published on loopback only.
   */
  runRegistry: (o: RunRegistryOptions): string[] => [
    'run',
    '-d',
    '--restart=always',
    '--name',
    o.name,
    ...Object.entries(o.labels ?? {}).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    '-p',
    // Port 0: docker picks a free one (read back with `docker port`).
    o.hostPort === 0 ? '127.0.0.1::5000' : `127.0.0.1:${o.hostPort}:5000`,
    '--network',
    o.network,
    o.image ?? 'registry:2',
  ],
  port: (name: string): string[] => ['port', name, '5000/tcp'],
  exec: (container: string, args: string[]): string[] => ['exec', container, ...args],
  copyTo: (file: string, container: string, dest: string): string[] => ['cp', file, `${container}:${dest}`],
  inspectContainer: (name: string): string[] => ['container', 'inspect', name],
  /** The running containers on a network with their published ports (parseDockerPs). */
  psOnNetwork: (network: string): string[] => ['ps', '--filter', `network=${network}`, '--format', '{{.Names}}\t{{.Ports}}'],
  /** With its anonymous volumes (the registry's storage, a kind node's /var). */
  removeContainer: (name: string): string[] => ['rm', '-f', '-v', name],
  /** A run's own bridge network (kind's options: masquerading on), labelled with the run. */
  networkCreate: (name: string, labels: Readonly<Record<string, string>> = {}): string[] => [
    'network',
    'create',
    '--driver',
    'bridge',
    '-o',
    'com.docker.network.bridge.enable_ip_masquerade=true',
    ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    name,
  ],
  removeNetwork: (name: string): string[] => ['network', 'rm', name],
  /** Names of the containers (running or not) with a label; `withValue`: NAME<TAB>that label's value. */
  psLabelled: (label: string, withValue = false): string[] => ['ps', '-a', '--filter', `label=${label}`, '--format', withValue ? `{{.Names}}\t{{.Label "${label}"}}` : '{{.Names}}'],
  networksLabelled: (label: string): string[] => ['network', 'ls', '--filter', `label=${label}`, '--format', '{{.Name}}'],
  /** `docker container inspect` / `docker network inspect` of several at once (a JSON array). */
  inspectContainers: (names: readonly string[]): string[] => ['container', 'inspect', ...names],
  inspectNetworks: (names: readonly string[]): string[] => ['network', 'inspect', ...names],
  networkConnect: (network: string, container: string): string[] => ['network', 'connect', network, container],
  networkDisconnect: (network: string, container: string): string[] => ['network', 'disconnect', '--force', network, container],
};

// ---- output parsers (pure) ----

/**
 * Parses `docker container inspect NAME` (a JSON array of one object). Returns undefined for
 * an empty array (no such container).
 */
export function parseContainerInspect(json: string): ContainerState | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw new DevpkgError(`docker inspect printed something that is not JSON: ${json.trim().slice(0, 200)}`);
  }
  const first = Array.isArray(parsed) ? (parsed[0] as Record<string, unknown> | undefined) : undefined;
  if (!first) return undefined;
  const state = (first.State ?? {}) as { Running?: boolean; Status?: string; ExitCode?: number; FinishedAt?: string };
  const settings = (first.NetworkSettings ?? {}) as { Networks?: Record<string, { IPAddress?: string }> };
  const networks: Record<string, string> = {};
  for (const [net, info] of Object.entries(settings.Networks ?? {})) {
    if (info?.IPAddress) networks[net] = info.IPAddress;
  }
  const finished = state.FinishedAt && !state.FinishedAt.startsWith('0001-') ? state.FinishedAt : undefined;
  return {
    name: String(first.Name ?? '').replace(/^\//, ''),
    running: state.Running === true,
    ...(state.Status ? { status: state.Status } : {}),
    ...(typeof state.ExitCode === 'number' && state.Running !== true ? { exitCode: state.ExitCode } : {}),
    ...(finished ? { finishedAt: finished } : {}),
    networks,
  };
}

/**
 * `docker container inspect` / `docker network inspect` of several: each one's name and labels
 * (a container's under Config.Labels, a network's under Labels). Output that is not JSON (the
 * names were all gone) gives none.
 */
export function parseInspectLabels(json: string): Array<{ name: string; labels: Record<string, string> }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.map((x: Record<string, unknown>) => {
    const labels = ((x.Config as { Labels?: unknown } | undefined)?.Labels ?? x.Labels ?? {}) as Record<string, string> | null;
    return { name: String(x.Name ?? '').replace(/^\//, ''), labels: { ...(labels ?? {}) } };
  });
}

/**
 * The docker CLI. Used for the kind mode's registry container (and by the cluster helpers for
 * network plumbing). Argv arrays only, never a shell.
 */
export class Docker extends VersionedTool<string> {
  /** Finds docker and checks that a daemon answers; `version` is the daemon's. */
  static async create(exec: ExecFn = execTool, path = 'docker'): Promise<Docker> {
    const version = await askVersion(exec, path, dockerArgs.version(), (out) => out.trim() || undefined, (r) =>
      `docker does not answer (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(-300)}; the kind mode needs a running Docker daemon`,
    );
    return new Docker(path, version, exec);
  }

  private async run(args: string[], allowFail = false): Promise<ExecResult> {
    const r = await this.exec(this.path, args, { allowFail: true });
    if (r.code !== 0 && !allowFail) {
      throw new DevpkgError(`docker ${args.join(' ')} failed (exit ${r.code}): ${lastLines(r.stderr || r.stdout, 10)}`);
    }
    return r;
  }

  /** The container's state, or undefined when there is no such container. */
  async inspectContainer(name: string): Promise<ContainerState | undefined> {
    const r = await this.run(dockerArgs.inspectContainer(name), true);
    if (r.code !== 0) {
      if (/no such (container|object)/i.test(r.stderr)) return undefined;
      throw new DevpkgError(`docker container inspect ${name} failed (exit ${r.code}): ${r.stderr.trim()}`);
    }
    return parseContainerInspect(r.stdout);
  }

  /** `docker ps` of a network: each line NAME<TAB>PORTS. */
  async psOnNetwork(network: string): Promise<string> {
    return (await this.run(dockerArgs.psOnNetwork(network))).stdout;
  }

  async runRegistry(o: RunRegistryOptions): Promise<string> {
    const r = await this.run(dockerArgs.runRegistry(o), true);
    if (r.code !== 0) {
      const why = r.stderr.trim();
      const hint = /port is already allocated|address already in use/i.test(why)
        ? `; port ${o.hostPort} is taken on 127.0.0.1: choose another one`
        : /network .* not found/i.test(why)
          ? `; the docker network "${o.network}" does not exist (create the kind cluster first)`
          : '';
      throw new DevpkgError(`could not start the registry container ${o.name}: ${why}${hint}`);
    }
    return r.stdout.trim();
  }

  /** The host port a container's 5000/tcp is published on (`127.0.0.1:49153` -> 49153). */
  async publishedPort(name: string): Promise<number> {
    const r = await this.run(dockerArgs.port(name));
    const m = /:(\d+)\s*$/m.exec(r.stdout.trim());
    if (!m) throw new DevpkgError(`docker port ${name} 5000/tcp printed no port: ${r.stdout.trim()}`);
    return Number(m[1]);
  }

  async execIn(container: string, args: string[]): Promise<void> {
    await this.run(dockerArgs.exec(container, args));
  }

  async copyTo(file: string, container: string, dest: string): Promise<void> {
    await this.run(dockerArgs.copyTo(file, container, dest));
  }

  async removeContainer(name: string): Promise<void> {
    await this.run(dockerArgs.removeContainer(name), true);
  }

  /** Creates a network; an existing one of that name is an error (docker refuses duplicates). */
  async networkCreate(name: string, labels: Readonly<Record<string, string>> = {}): Promise<void> {
    await this.run(dockerArgs.networkCreate(name, labels));
  }

  /** Containers (running or not) carrying a label, with their labels. */
  async labelledContainers(label: string): Promise<Array<{ name: string; labels: Record<string, string> }>> {
    const names = (await this.run(dockerArgs.psLabelled(label))).stdout.split('\n').map((s) => s.trim()).filter(Boolean);
    if (!names.length) return [];
    // One may go between the two calls: inspect prints the others and exits 1.
    return parseInspectLabels((await this.run(dockerArgs.inspectContainers(names), true)).stdout);
  }

  /** Containers carrying a label, with that label's value. */
  async labelValues(label: string): Promise<Array<{ name: string; value: string }>> {
    const out = (await this.run(dockerArgs.psLabelled(label, true))).stdout;
    return out.split('\n').filter((l) => l.trim()).map((l) => {
      const [name, value] = l.split('\t');
      return { name: name!.trim(), value: (value ?? '').trim() };
    });
  }

  /** Networks carrying a label, with their labels. */
  async labelledNetworks(label: string): Promise<Array<{ name: string; labels: Record<string, string> }>> {
    const names = (await this.run(dockerArgs.networksLabelled(label))).stdout.split('\n').map((s) => s.trim()).filter(Boolean);
    if (!names.length) return [];
    return parseInspectLabels((await this.run(dockerArgs.inspectNetworks(names), true)).stdout);
  }

  async networkConnect(network: string, container: string): Promise<void> {
    await this.run(dockerArgs.networkConnect(network, container));
  }

  async networkDisconnect(network: string, container: string): Promise<void> {
    await this.run(dockerArgs.networkDisconnect(network, container), true);
  }
}

/**
 * Which run made what (pure). Kind mode labels everything it creates in Docker with the run that
 * made it (its host, the pid that owns the run and when that process started, the GitHub run) and
 * writes the same record into its temp folders; kind's node containers carry kind's own label
 * `io.x-k8s.kind.cluster=<name>` and sit on the run's network, which carries devpkg's. A run's
 * start reads these records back and decides here what another run left: things whose owner
 * process is gone on this host are removed, a live run's are left alone, and what cannot be
 * told (another host, no record) is named with the command that removes it.
 */
import type { CleanupItem } from '../cleanup-list.js';

/** The process a run's things belong to. */
export interface RunOwner {
  host: string;
  /** The CLI's own pid; in the action the job's runner process (it outlives main, until the post step). */
  pid: number;
  /** The kernel's start time of that pid (/proc/PID/stat field 22, clock ticks since boot): tells a reused pid. */
  pidStart?: string;
  /** When the run started (ISO 8601), for people. */
  startedAt: string;
  /** `owner/repo run N attempt M` on GitHub. */
  github?: string;
  /** Made to be kept (`devpkg kind --keep`): never a leftover. */
  keep?: boolean;
}

export const OWNER_LABELS = {
  host: 'dev.devpkg.run.host',
  pid: 'dev.devpkg.run.pid',
  pidStart: 'dev.devpkg.run.pid-start',
  started: 'dev.devpkg.run.started',
  github: 'dev.devpkg.run.github',
  keep: 'dev.devpkg.run.keep',
  cluster: 'dev.devpkg.cluster',
} as const;

/** kind's label on every node container: the cluster's name. */
export const KIND_CLUSTER_LABEL = 'io.x-k8s.kind.cluster';
/** Every cluster devpkg makes is named so (kindClusterName); nothing else of a user's is touched. */
export const CLUSTER_PREFIX = 'devpkg-';
/** The temp folders kind mode makes (os.tmpdir()), each with an owner file. */
export const FOLDER_PREFIXES = ['devpkg-kind-cluster-', 'devpkg-kind-cli-'] as const;
export const OWNER_FILE = '.devpkg-owner.json';

/** The Docker labels of a run's container or network. */
export function ownerLabels(o: RunOwner, cluster: string): Record<string, string> {
  return {
    [OWNER_LABELS.host]: o.host,
    [OWNER_LABELS.pid]: String(o.pid),
    ...(o.pidStart ? { [OWNER_LABELS.pidStart]: o.pidStart } : {}),
    [OWNER_LABELS.started]: o.startedAt,
    ...(o.github ? { [OWNER_LABELS.github]: o.github } : {}),
    ...(o.keep ? { [OWNER_LABELS.keep]: 'true' } : {}),
    [OWNER_LABELS.cluster]: cluster,
  };
}

/** The owner a thing's labels (or owner file) name, or undefined when they name none. */
export function ownerFromLabels(labels: Readonly<Record<string, string>> | undefined): RunOwner | undefined {
  const host = labels?.[OWNER_LABELS.host];
  const pid = Number(labels?.[OWNER_LABELS.pid]);
  if (!host || !Number.isInteger(pid) || pid <= 0) return undefined;
  const pidStart = labels?.[OWNER_LABELS.pidStart];
  const github = labels?.[OWNER_LABELS.github];
  return {
    host,
    pid,
    ...(pidStart ? { pidStart } : {}),
    startedAt: labels?.[OWNER_LABELS.started] ?? '',
    ...(github ? { github } : {}),
    ...(labels?.[OWNER_LABELS.keep] === 'true' ? { keep: true } : {}),
  };
}

export function describeOwner(o: RunOwner): string {
  return `devpkg run on ${o.host} pid ${o.pid}${o.startedAt ? ` started ${o.startedAt}` : ''}${o.github ? ` (GitHub ${o.github})` : ''}`;
}

/** What the process table says of a pid: gone, or alive with its start time when it can be read. */
export type Liveness = { alive: false } | { alive: true; start?: string };

export type OwnerState = 'gone' | 'running' | 'kept' | 'elsewhere' | 'unknown';

/**
 * gone: on this host and its process is not there, or its pid now belongs to a process that started
 * at another time (reused). running: that process is alive (when its start time cannot be read,
 * alive counts as running). elsewhere: made on another host, whose processes this run cannot see.
 * unknown: no owner record. kept: made by `--keep`, the user's now.
 */
export function ownerState(o: RunOwner | undefined, host: string, probe: Liveness | undefined): OwnerState {
  if (!o) return 'unknown';
  if (o.keep) return 'kept';
  if (o.host !== host) return 'elsewhere';
  if (!probe?.alive) return 'gone';
  if (o.pidStart && probe.start && probe.start !== o.pidStart) return 'gone';
  return 'running';
}

export interface FoundThings {
  /** devpkg-labelled networks. */
  networks: ReadonlyArray<{ name: string; labels: Readonly<Record<string, string>> }>;
  /** devpkg-labelled containers (the registry). */
  containers: ReadonlyArray<{ name: string; labels: Readonly<Record<string, string>> }>;
  /** kind node containers with their cluster (kind's label); those not named devpkg-* are ignored. */
  nodes: ReadonlyArray<{ name: string; cluster: string }>;
  /** kind mode's temp folders, with the owner their file names (undefined: no file, or unreadable). */
  folders: ReadonlyArray<{ path: string; owner?: RunOwner }>;
}

/** One run's things (or, for `unknown`, one cluster's), with what removes them. */
export interface LeftoverGroup {
  owner?: RunOwner;
  state: OwnerState;
  /** The cluster, when the things belong to one. */
  cluster?: string;
  /** In the order they are removed: containers (nodes, then the registry), the network, folders. */
  items: CleanupItem[];
  /** What they are, for the log: `kind cluster X (node X-control-plane)`, `container X-registry`, ... */
  what: string[];
}

export interface LeftoverPlan {
  /** Things whose owner is gone on this host: remove them. */
  remove: LeftoverGroup[];
  /** A live run's, another host's, or nobody's: left alone (the last two named with their commands). */
  keep: LeftoverGroup[];
}

// A process is its host, pid and start; a run's labels and its folders' files agree on these.
const ownerKey = (o: RunOwner) => `${o.host}\0${o.pid}\0${o.pidStart ?? ''}\0${o.keep ? 'keep' : ''}`;

/**
 * Pure: devpkg's things grouped by the run that made them and split into what to remove (the
 * owner is gone on this host) and what to leave. A kind cluster's owner is its network's (they
 * share the name); a devpkg-* cluster with no such network (made by an older devpkg, or by hand)
 * has no owner and is only named. `processes` holds the probe of every pid the records name.
 */
export function planLeftovers(found: FoundThings, here: { host: string; processes: ReadonlyMap<number, Liveness> }): LeftoverPlan {
  const groups = new Map<string, LeftoverGroup>();
  const groupOf = (owner: RunOwner | undefined, cluster: string | undefined): LeftoverGroup => {
    const key = owner ? `owner\0${ownerKey(owner)}` : `cluster\0${cluster ?? ''}`;
    let g = groups.get(key);
    if (!g) {
      g = { ...(owner ? { owner } : {}), state: ownerState(owner, here.host, owner ? here.processes.get(owner.pid) : undefined), items: [], what: [] };
      groups.set(key, g);
    }
    if (cluster && !g.cluster) g.cluster = cluster;
    return g;
  };
  const networkOwner = new Map<string, RunOwner | undefined>();
  for (const n of found.networks) networkOwner.set(n.labels[OWNER_LABELS.cluster] || n.name, ownerFromLabels(n.labels));

  // kind nodes by cluster, then each cluster's owner from its network.
  const nodesOf = new Map<string, string[]>();
  for (const n of found.nodes) {
    if (!n.cluster.startsWith(CLUSTER_PREFIX)) continue;
    nodesOf.set(n.cluster, [...(nodesOf.get(n.cluster) ?? []), n.name]);
  }
  for (const [cluster, nodes] of [...nodesOf].sort(([a], [b]) => a.localeCompare(b))) {
    const g = groupOf(networkOwner.get(cluster), cluster);
    const sorted = [...nodes].sort();
    for (const name of sorted) g.items.push({ kind: 'docker-container', name });
    g.what.push(`kind cluster ${cluster} (node${sorted.length > 1 ? 's' : ''} ${sorted.join(', ')})`);
  }
  for (const c of [...found.containers].sort((a, b) => a.name.localeCompare(b.name))) {
    const g = groupOf(ownerFromLabels(c.labels), c.labels[OWNER_LABELS.cluster]);
    g.items.push({ kind: 'docker-container', name: c.name });
    g.what.push(`container ${c.name}`);
  }
  for (const n of [...found.networks].sort((a, b) => a.name.localeCompare(b.name))) {
    const g = groupOf(ownerFromLabels(n.labels), n.labels[OWNER_LABELS.cluster]);
    g.items.push({ kind: 'docker-network', name: n.name });
    g.what.push(`network ${n.name}`);
  }
  for (const f of [...found.folders].sort((a, b) => a.path.localeCompare(b.path))) {
    // A folder without its owner file may be a live run's between mkdtemp and the write: never touched.
    if (!f.owner) continue;
    const g = groupOf(f.owner, undefined);
    g.items.push({ kind: 'temp-dir', path: f.path });
    g.what.push(`folder ${f.path}`);
  }
  const all = [...groups.values()];
  return { remove: all.filter((g) => g.state === 'gone'), keep: all.filter((g) => g.state !== 'gone') };
}

/** Pure: the log line for a group left alone. */
export function keptLine(g: LeftoverGroup, removeHint: (item: CleanupItem) => string): string {
  const what = g.what.join(', ');
  switch (g.state) {
    case 'running':
      return `left alone: ${what}, of a ${describeOwner(g.owner!)} that is still running`;
    case 'kept':
      return `left alone: ${what}, kept by a ${describeOwner(g.owner!)} (--keep); delete them with: ${g.items.map(removeHint).join('; ')}`;
    case 'elsewhere':
      return `left alone: ${what}, made by a ${describeOwner(g.owner!)} on another host (its process cannot be checked from here); if that run is over, remove them with: ${g.items.map(removeHint).join('; ')}`;
    default:
      return `left alone: ${what}, named like devpkg's but with no record of the run that made it (an older devpkg, or made by hand); if no run uses it, remove it with: ${g.items.map(removeHint).join('; ')}`;
  }
}

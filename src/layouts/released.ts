/**
 * The released version of a package whose release git does not hold (kctrl's authoring layout:
 * `kctrl package release` renders the released Package, it is never committed). The chain, first
 * found wins: `--released-version` (input released-version), else the highest matching git tag,
 * else the cluster's Packages of the refName (cluster mode only: kind and plan have no cluster
 * that holds a release), else 0.0.0. Pure: the caller looks the sources up in that order, only as
 * far as it needs to, and this says which one gave the version and why, for the plan and report.
 */

/** What the cluster's Packages say (src/cluster/released.ts): a version, or why there is none. */
export interface ClusterReleased {
  version?: string;
  /** Where the version came from, or why the cluster gave none. */
  why: string;
}

/** Looks up the released version of a repository refName in the cluster (cluster mode). */
export type ClusterReleasedLookup = (refName: string) => Promise<ClusterReleased>;

export type ReleasedFrom = 'flag' | 'tag' | 'cluster' | 'none';

export interface ReleasedChoice {
  version: string;
  from: ReleasedFrom;
  /** In words, for the plan's notes and the report. */
  why: string;
}

export interface ReleasedSources {
  /** --released-version (input released-version). */
  flag?: string;
  /** The highest matching git tag's version. */
  tag?: string;
  /** The cluster's answer; undefined when no cluster was read (not cluster mode, or an earlier source won). */
  cluster?: ClusterReleased;
}

/** Pure: the released version from the sources found, in the chain's order. */
export function chooseReleased(s: ReleasedSources): ReleasedChoice {
  if (s.flag) return { version: s.flag, from: 'flag', why: 'from --released-version (input released-version)' };
  if (s.tag) return { version: s.tag, from: 'tag', why: 'the highest matching git tag' };
  if (s.cluster?.version) return { version: s.cluster.version, from: 'cluster', why: `from the cluster's Packages: ${s.cluster.why}` };
  const cluster = s.cluster ? `, and none from the cluster (${s.cluster.why})` : ' (the cluster is read only in cluster mode)';
  return { version: '0.0.0', from: 'none', why: `no --released-version, no matching git tag${cluster}: 0.0.0` };
}

/** Whether the chain needs the cluster (the cheaper sources gave nothing). */
export function needsCluster(s: Pick<ReleasedSources, 'flag' | 'tag'>): boolean {
  return !s.flag && !s.tag;
}

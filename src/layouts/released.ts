/**
 * The released version of a package whose release git does not hold (kctrl's authoring layout:
 * `kctrl package release` renders the released Package, it is never committed). The chain, first
 * found wins: `--released-version` (input released-version), else the highest matching git tag
 * reachable from the base commit (`git tag --merged BASE`; without a base, from the commit read),
 * else the cluster's Packages of the refName (cluster mode only: kind and plan have no cluster
 * that holds a release), else 0.0.0. Pure: the caller looks the sources up in that order, only as
 * far as it needs to, and this says which one gave the version and why, for the plan and report.
 */
import type { ReleasedOrigin } from '../results.js';

/** What the cluster's Packages say (src/cluster/released.ts): a version, or why there is none. */
export interface ClusterReleased {
  version?: string;
  /** Where the version came from, or why the cluster gave none. */
  why: string;
}

/** Looks up the released version of a repository refName in the cluster (cluster mode). */
export type ClusterReleasedLookup = (refName: string) => Promise<ClusterReleased>;

export type ReleasedFrom = ReleasedOrigin['source'];

export interface ReleasedChoice {
  version: string;
  from: ReleasedFrom;
  /** In words, for the plan's notes and the report. */
  why: string;
  /** As data, for the plan's JSON: the source, and the tag and the commit it is reachable from. */
  origin: ReleasedOrigin;
}

/** The git tag a released version was read from. */
export interface TagFound {
  version: string;
  tag: string;
  /** A tag of the package's own (`<name>-v1.2.0`, `<refName>/v1.2.0`), not a repository-wide one (`v1.2.0`). */
  own: boolean;
  /** The commit whose history holds it (the base; without one, the commit read, or HEAD). */
  reachableFrom: string;
}

export interface ReleasedSources {
  /** --released-version (input released-version). */
  flag?: string;
  /** The highest matching git tag reachable from the base. */
  tag?: TagFound;
  /** Where the tags were looked for, when none matched (for the words). */
  tagsAt?: string;
  /** The cluster's answer; undefined when no cluster was read (not cluster mode, or an earlier source won). */
  cluster?: ClusterReleased;
}

/** Pure: the released version from the sources found, in the chain's order. */
export function chooseReleased(s: ReleasedSources): ReleasedChoice {
  if (s.flag) return { version: s.flag, from: 'released-version', why: 'from --released-version (input released-version)', origin: { source: 'released-version' } };
  if (s.tag) {
    const { tag, own, reachableFrom } = s.tag;
    const which = own ? "the highest of the package's own tags" : 'the highest matching git tag';
    return { version: s.tag.version, from: 'tag', why: `from git tag ${tag} (${which} reachable from ${short(reachableFrom)})`, origin: { source: 'tag', tag, reachableFrom } };
  }
  if (s.cluster?.version) return { version: s.cluster.version, from: 'cluster', why: `from the cluster's Packages: ${s.cluster.why}`, origin: { source: 'cluster' } };
  const cluster = s.cluster ? `, and none from the cluster (${s.cluster.why})` : ' (the cluster is read only in cluster mode)';
  const at = s.tagsAt ? ` reachable from ${short(s.tagsAt)}` : '';
  return { version: '0.0.0', from: 'none', why: `no --released-version, no matching git tag${at}${cluster}: 0.0.0`, origin: { source: 'none' } };
}

/** A commit as people read it (12 hex digits); a name such as HEAD as it is. */
const short = (ref: string) => (/^[0-9a-f]{40,64}$/.test(ref) ? ref.slice(0, 12) : ref);

/** Whether the chain needs the cluster (the cheaper sources gave nothing). */
export function needsCluster(s: Pick<ReleasedSources, 'flag' | 'tag'>): boolean {
  return !s.flag && !s.tag;
}

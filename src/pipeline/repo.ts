/**
 * The packages repository of a run: its layouts, opened once from the inputs (the edge), and its
 * working tree, listed once however many packages the run loads.
 */
import type { Inputs } from '../inputs.js';
import { Layouts, workTree, type ClusterReleasedLookup, type Tree } from '../layouts/index.js';

export interface Repo {
  layouts: Layouts;
  tree: Tree & { root: string };
}

const opened = new WeakMap<Pick<Inputs, 'layout' | 'packagesDir' | 'releasedVersion'>, Map<string, Repo>>();

export function repoOf(inputs: Pick<Inputs, 'layout' | 'packagesDir' | 'releasedVersion'>, root: string): Repo {
  return opened.get(inputs)?.get(root) ?? openRepo(inputs, root);
}

/**
 * Opens the repository of a run (the edge), with what only a mode knows: cluster mode's lookup of
 * the released version in the cluster. repoOf then hands back this one.
 */
export function openRepo(inputs: Pick<Inputs, 'layout' | 'packagesDir' | 'releasedVersion'>, root: string, extra: { clusterReleased?: ClusterReleasedLookup } = {}): Repo {
  let byRoot = opened.get(inputs);
  if (!byRoot) opened.set(inputs, (byRoot = new Map()));
  const r = { layouts: Layouts.open(inputs.layout, { packagesDir: inputs.packagesDir, releasedVersion: inputs.releasedVersion, ...extra }), tree: workTree(root) };
  byRoot.set(root, r);
  return r;
}

/**
 * The packages repository of a run: its layouts, opened once from the inputs (the edge), and its
 * working tree, listed once however many packages the run loads.
 */
import type { Inputs } from '../inputs.js';
import { Layouts, workTree, type Tree } from '../layouts/index.js';

export interface Repo {
  layouts: Layouts;
  tree: Tree & { root: string };
}

const opened = new WeakMap<Pick<Inputs, 'layout' | 'packagesDir' | 'releasedVersion'>, Map<string, Repo>>();

export function repoOf(inputs: Pick<Inputs, 'layout' | 'packagesDir' | 'releasedVersion'>, root: string): Repo {
  let byRoot = opened.get(inputs);
  if (!byRoot) opened.set(inputs, (byRoot = new Map()));
  let r = byRoot.get(root);
  if (!r) byRoot.set(root, (r = { layouts: Layouts.open(inputs.layout, { packagesDir: inputs.packagesDir, releasedVersion: inputs.releasedVersion }), tree: workTree(root) }));
  return r;
}

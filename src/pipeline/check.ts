/**
 * Problems of the package versions detect lists: each read at the commit detect looked at (or
 * from the working tree) by its layout and checked like plan checks it. Never throws for a
 * package; one bad file never hides the others.
 */
import type { Layouts, Tree } from '../layouts/index.js';
import { sortProblems, type Problem } from '../packages/problems.js';
import type { PackageVersionRef } from '../detect/index.js';

export async function checkVersions(layouts: Layouts, refs: readonly PackageVersionRef[], tree: Tree): Promise<Problem[]> {
  const found = await Promise.all(refs.map((r) => layouts.check(tree, r)));
  return sortProblems(found.flat());
}

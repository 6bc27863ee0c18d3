// detectChanges as the edge calls it: the layouts opened first, the trees read through git.
import { commitTree, Layouts, type Tree } from '../../src/layouts/index.js';
import type { Git } from '../../src/tools/git.js';

/** The layouts given, each side of the diff read at its commit. */
export const withTrees = (git: Git, layouts: Layouts) => ({ git, layouts, treeAt: (c: string): Tree => commitTree(git, c) });

/** TCE's version folders under packagesDir (what most diff tests are about). */
export const tceDiff = (git: Git, packagesDir: string) => withTrees(git, Layouts.open('tce', { packagesDir }));

// A package version loaded as every mode loads it: the repository's layouts, its working tree.
import { Layouts, workTree, type LoadedPackage } from '../../src/layouts/index.js';

export async function loadPackage(root: string, packagesDir: string, name: string, version: string): Promise<LoadedPackage> {
  const layouts = Layouts.open('auto', { packagesDir });
  const tree = workTree(root);
  const [ref] = await layouts.find(tree, [{ name, version }]);
  return layouts.load(tree, ref!);
}

// A package version loaded as every mode loads it: the repository's layouts, its working tree.
import { tmpdir } from 'node:os';
import { bundleSource, Layouts, workTree, type BundleSource, type LoadedPackage } from '../../src/layouts/index.js';
import { execTool } from '../../src/tools/exec.js';

export async function loadPackage(root: string, packagesDir: string, name: string, version: string): Promise<LoadedPackage> {
  const layouts = Layouts.open('auto', { packagesDir });
  const tree = workTree(root);
  const [ref] = await layouts.find(tree, [{ name, version }]);
  return layouts.load(tree, ref!);
}

/** What a loaded package pushes (its push plan carried out), as the modes hand it to the pipeline. */
export function bundleOfLoaded(loaded: LoadedPackage, root: string): Promise<BundleSource> {
  return bundleSource(loaded, { root, exec: execTool, tmp: tmpdir(), log: () => undefined });
}

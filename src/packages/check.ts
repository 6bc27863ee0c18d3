/**
 * What is wrong in one version folder's package.yaml, without planning anything (pure): the
 * checks plan and the cluster modes make, for detect, which only lists what changed.
 */
import { bundleFetch } from './derive.js';
import { checkFolderVersion } from './layout.js';
import { lineOf, parsePackageFile } from './model.js';
import { problemFromError, type Problem } from './problems.js';

export function checkPackageText(text: string, file: string, folderVersion: string, pkg?: string): Problem[] {
  const tag = (p: Problem): Problem => (pkg ? { ...p, package: pkg } : p);
  try {
    const res = checkFolderVersion(parsePackageFile(text, file), folderVersion);
    bundleFetch(res.pkg, (p) => ({ file, line: lineOf(res, p) }));
    return res.warnings.map(tag);
  } catch (err) {
    return [problemFromError(err, file, pkg)];
  }
}

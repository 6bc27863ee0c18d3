/**
 * Problems of the package versions detect lists: each package.yaml read at the commit detect
 * looked at (or from the working tree) and checked like plan checks it. Never throws for a
 * package; one bad file never hides the others.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkPackageText } from '../packages/check.js';
import { PACKAGE_FILE } from '../packages/layout.js';
import { sortProblems, type Problem } from '../packages/problems.js';
import type { PackageVersionRef } from '../detect/index.js';

/** Reads a file by its path relative to the repository root; undefined when it does not exist. */
export type RepoReader = (file: string) => Promise<string | undefined>;

export function workTreeReader(root: string): RepoReader {
  return (file) => readFile(path.join(root, file), 'utf8').catch(() => undefined);
}

export function gitReader(git: { tryShow(ref: string, path: string): Promise<string | undefined> }, ref: string): RepoReader {
  return (file) => git.tryShow(ref, file);
}

export async function checkVersions(refs: readonly PackageVersionRef[], read: RepoReader): Promise<Problem[]> {
  const found = await Promise.all(
    refs.map(async (r) => {
      const file = path.posix.join(r.path, PACKAGE_FILE);
      const text = await read(file);
      return text === undefined ? [] : checkPackageText(text, file, r.version, `${r.name}/${r.version}`);
    }),
  );
  return sortProblems(found.flat());
}

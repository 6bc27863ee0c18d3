// The commit stamp in the bundle (src/version.ts's COMMIT_STAMP): scripts/bundle.mjs checks the
// bundle holds it exactly once, scripts/stamp-commit.mjs replaces it for a release's tarball.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const UNSTAMPED = 'devpkg-build-commit:' + '0'.repeat(40);

/** The .js files of `dir` (of `files`) holding the unstamped commit, and how often it occurs in all. */
export function findStamps(dir, files) {
  const counts = files.map((f) => [f, readFileSync(join(dir, f), 'utf8').split(UNSTAMPED).length - 1]);
  return { files: counts.filter(([, n]) => n > 0).map(([f]) => f), count: counts.reduce((n, [, c]) => n + c, 0) };
}

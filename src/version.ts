// What `devpkg --version` prints. The version is package.json's, put into dist/ when it is bundled
// (the JSON import is inlined by ncc, down to the one field): nothing reads package.json at run
// time, from an install that may not have it.
//
// The commit is stamped only into a release's tarball: the release workflow runs
// scripts/stamp-commit.mjs, which replaces the 40 zeros of COMMIT_STAMP in dist/ with the tagged
// commit, before `npm pack`. The committed dist/ keeps the zeros, so it does not change with every
// commit and `npm run check-dist` compares like with like; `devpkg --version` then names no commit.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** Exactly this text is replaced by scripts/stamp-commit.mjs (scripts/bundle.mjs fails when the bundle does not hold it once). */
const COMMIT_STAMP = 'devpkg-build-commit:0000000000000000000000000000000000000000';

/** The commit a release build was made from, or undefined (a build from source). */
export function buildCommit(stamp: string = COMMIT_STAMP): string | undefined {
  const sha = /^devpkg-build-commit:([0-9a-f]{40})$/.exec(stamp)?.[1];
  return sha && !/^0+$/.test(sha) ? sha : undefined;
}

/** `devpkg 0.1.0 (commit abc1234)`, or `devpkg 0.1.0` when the build names no commit. */
export function versionLine(version: string = VERSION, commit: string | undefined = buildCommit()): string {
  return commit ? `devpkg ${version} (commit ${commit.slice(0, 7)})` : `devpkg ${version}`;
}

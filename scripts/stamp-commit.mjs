// Stamps the commit a release is built from into a built dist/, for `devpkg --version`
// (src/version.ts): the one 'devpkg-build-commit:' + 40 zeros that scripts/bundle.mjs leaves in
// the bundle becomes 'devpkg-build-commit:<sha>'. The release workflow runs it on the checked-out
// dist/ (which check-dist has just found equal to what the sources build) before `npm pack`; the
// committed dist/ is never stamped, so it does not change with every commit.
//
//   node scripts/stamp-commit.mjs DIST SHA
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findStamps, UNSTAMPED } from './commit-stamp.mjs';

const [dist, sha] = process.argv.slice(2);
if (!dist || !sha || process.argv.length > 4) {
  console.error('usage: node scripts/stamp-commit.mjs DIST SHA');
  process.exit(2);
}
if (!/^[0-9a-f]{40}$/.test(sha)) {
  console.error(`stamp-commit: SHA "${sha}" is not a full commit SHA (40 lowercase hex digits, as git rev-parse HEAD prints)`);
  process.exit(2);
}
let files;
try {
  files = readdirSync(dist).filter((f) => f.endsWith('.js'));
} catch (err) {
  console.error(`stamp-commit: cannot read ${dist}: ${err.message}`);
  process.exit(2);
}
const { files: found, count } = findStamps(dist, files);
if (count !== 1) {
  console.error(`stamp-commit: ${dist} holds the unstamped commit ${count} times, not once (already stamped, or not a dist/ built by scripts/bundle.mjs)`);
  process.exit(1);
}
const file = join(dist, found[0]);
writeFileSync(file, readFileSync(file, 'utf8').replace(UNSTAMPED, `devpkg-build-commit:${sha}`));
console.log(`stamp-commit: ${file} names commit ${sha}`);

// Fails when dist/ is not what `npm run bundle` builds from the current sources.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const tmp = mkdtempSync(join(tmpdir(), 'devpkg-dist-'));
try {
  execFileSync(process.execPath, ['scripts/bundle.mjs', join(tmp, 'dist')], { stdio: 'inherit' });
  try {
    execFileSync('diff', ['-r', '-q', 'dist', join(tmp, 'dist')], { stdio: 'inherit' });
    console.log('dist/ is up to date');
  } catch {
    console.error('dist/ is stale: run `npm run bundle` and commit dist/');
    process.exitCode = 1;
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

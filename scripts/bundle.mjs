// Builds dist/: one ESM ncc bundle whose chunks load lazily (the Kubernetes client and
// Octokit only in the modes that need them), every file minified with terser (ncc's -m
// covers only the entry file), and three entry shims: index.js = action main,
// post.js = action post, cli.js = devpkg.
//
// The bundle holds src/version.ts's commit stamp (40 zeros) exactly once, checked here:
// scripts/stamp-commit.mjs puts the commit there for a release's tarball. The committed dist/
// keeps the zeros, so it stays the same from commit to commit.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { minify } from 'terser';
import { findStamps } from './commit-stamp.mjs';
import { removeStaleStages } from './stale-stages.mjs';

const out = resolve(process.argv[2] ?? 'dist');
// Build next to the target and swap at the end, so a failed or concurrent build never
// leaves dist/ half-written.
const stage = `${out}.building-${process.pid}`;
removeStaleStages(out);
// Stopped by a signal: the stage goes with it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.once(signal, () => {
    rmSync(stage, { recursive: true, force: true });
    process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 })[signal]);
  });
}
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
try {
  execFileSync(
    process.execPath,
    ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', 'src/index.ts', '-o', stage, '--target', 'es2022', '--license', 'licenses.txt', '-q'],
    { stdio: 'inherit' },
  );
  const files = readdirSync(stage).filter((f) => f.endsWith('.js')).sort();
  for (const file of files) {
    const path = join(stage, file);
    const result = await minify(readFileSync(path, 'utf8'), {
      module: true,
      compress: { passes: 1 },
      mangle: true,
      format: { comments: false },
    });
    writeFileSync(path, result.code + '\n');
  }
  const stamps = findStamps(stage, files).count;
  if (stamps !== 1) throw new Error(`the bundle holds src/version.ts's commit stamp ${stamps} times, not once: keep COMMIT_STAMP as scripts/stamp-commit.mjs expects it`);
  writeFileSync(join(stage, 'post.js'), "import './index.js';\n");
  writeFileSync(join(stage, 'cli.js'), "#!/usr/bin/env node\nimport './index.js';\n");
  chmodSync(join(stage, 'cli.js'), 0o755);
  writeFileSync(join(stage, 'package.json'), JSON.stringify({ type: 'module' }) + '\n');
  rmSync(out, { recursive: true, force: true });
  renameSync(stage, out);
} catch (err) {
  rmSync(stage, { recursive: true, force: true });
  throw err;
}

// Builds dist/: one ESM ncc bundle whose chunks load lazily (the Kubernetes client and
// Octokit only in the modes that need them), every file minified with terser (ncc's -m
// covers only the entry file), and three entry shims: index.js = action main,
// post.js = action post, cli.js = devpkg.
//
// DEVPKG_BUILD_COMMIT=<40-hex sha> stamps that commit into the bundle for `devpkg --version`
// (src/version.ts): the release workflow sets it for the tarball it attaches to a release. The
// committed dist/ is built without it, so it stays the same from commit to commit.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { minify } from 'terser';

const out = resolve(process.argv[2] ?? 'dist');
const STAMP = 'devpkg-build-commit:' + '0'.repeat(40);
const commit = process.env.DEVPKG_BUILD_COMMIT ?? '';
if (commit && !/^[0-9a-f]{40}$/.test(commit)) {
  console.error(`DEVPKG_BUILD_COMMIT "${commit}" is not a full commit SHA (40 hex digits; git rev-parse HEAD)`);
  process.exit(2);
}
// Build next to the target and swap at the end, so a failed or concurrent build never
// leaves dist/ half-written.
const stage = `${out}.building-${process.pid}`;
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
try {
  execFileSync(
    process.execPath,
    ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', 'src/index.ts', '-o', stage, '--target', 'es2022', '--license', 'licenses.txt', '-q'],
    { stdio: 'inherit' },
  );
  const files = readdirSync(stage).filter((f) => f.endsWith('.js')).sort();
  const sources = new Map(files.map((f) => [f, readFileSync(join(stage, f), 'utf8')]));
  const stamps = [...sources.values()].reduce((n, text) => n + text.split(STAMP).length - 1, 0);
  if (stamps !== 1) throw new Error(`the bundle holds src/version.ts's commit stamp ${stamps} times, not once: keep COMMIT_STAMP there as scripts/bundle.mjs expects it`);
  for (const file of files) {
    const path = join(stage, file);
    const text = commit ? sources.get(file).replace(STAMP, `devpkg-build-commit:${commit}`) : sources.get(file);
    const result = await minify(text, {
      module: true,
      compress: { passes: 1 },
      mangle: true,
      format: { comments: false },
    });
    writeFileSync(path, result.code + '\n');
  }
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

// Builds dist/: one minified ESM ncc bundle with lazily loaded chunks, and
// three entry shims (index.js = action main, post.js = action post, cli.js = devpkg).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';

const out = resolve(process.argv[2] ?? 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const tmp = join(out, '.build');
execFileSync(
  process.execPath,
  ['node_modules/@vercel/ncc/dist/ncc/cli.js', 'build', 'src/index.ts', '-o', tmp, '-m', '--target', 'es2022', '--license', 'licenses.txt', '-q'],
  { stdio: 'inherit' },
);
// Keep ncc's index.js as the bundle body and add the shims around it.
execFileSync('sh', ['-c', `mv "${tmp}"/* "${out}"/ && rmdir "${tmp}"`]);
writeFileSync(join(out, 'post.js'), "import './index.js';\n");
writeFileSync(join(out, 'cli.js'), "#!/usr/bin/env node\nimport './index.js';\n");
chmodSync(join(out, 'cli.js'), 0o755);
writeFileSync(join(out, 'package.json'), JSON.stringify({ type: 'module' }) + '\n');

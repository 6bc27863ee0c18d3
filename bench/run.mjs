// `npm run bench [-- NAME ...]`: runs the named benchmarks (default: the ones that need no
// harness). push and verify need the harness exports in the environment.
import { spawnSync } from 'node:child_process';

const names = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['startup', 'plan'];
let failed = 0;
for (const name of names) {
  console.log(`\n== bench/${name}.bench.mjs`);
  const r = spawnSync(process.execPath, [`bench/${name}.bench.mjs`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);

// Start-up of the bundled action in plan mode, as a ratio to `node -e 0` (baseline),
// and the size of dist/. Targets: <= 3x and <= 6 MB (DESIGN.md had 2.5x before @actions/core
// came back as the runner-protocol layer: its import loads undici, tls and http2; issue 12).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const runs = Number(process.env.BENCH_RUNS ?? 15);
const node = process.env.BENCH_NODE ?? process.execPath;
const work = mkdtempSync(join(tmpdir(), 'devpkg-bench-start-'));
try {
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  for (const f of ['output', 'state', 'summary']) writeFileSync(join(work, f), '');
  const env = {
    ...process.env,
    INPUT_MODE: 'plan',
    INPUT_ALL: 'true',
    INPUT_COMMENT: 'false',
    'INPUT_PACKAGES-DIR': 'addons/packages',
    'INPUT_ARTIFACT-NAME': 'devpkg-results',
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_WORKSPACE: repo,
    GITHUB_OUTPUT: join(work, 'output'),
    GITHUB_STATE: join(work, 'state'),
    GITHUB_STEP_SUMMARY: join(work, 'summary'),
    RUNNER_TEMP: work,
  };
  const time = (args) => {
    const t = process.hrtime.bigint();
    const r = spawnSync(node, args, { env, stdio: 'ignore' });
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  time(['dist/index.js']);
  const base = [];
  const ours = [];
  for (let i = 0; i < runs; i++) {
    base.push(time(['-e', '0']));
    ours.push(time(['dist/index.js']));
  }
  const size = readdirSync('dist').reduce((n, f) => n + statSync(join('dist', f)).size, 0);
  const b = median(base);
  const o = median(ours);
  console.log(`baseline: node -e 0        median ${b.toFixed(1)} ms (${runs} runs, ${execFileSync(node, ['--version']).toString().trim()})`);
  console.log(`devpkg: node dist/index.js median ${o.toFixed(1)} ms (plan mode, example repository, --all)`);
  console.log(`ratio: ${(o / b).toFixed(2)}x (target <= 3x)`);
  console.log(`dist/: ${(size / 1e6).toFixed(2)} MB (target <= 6 MB)`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

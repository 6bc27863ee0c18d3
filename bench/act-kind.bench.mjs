#!/usr/bin/env node
// Benchmark: kind mode under a runner against the CLI. The same check twice on the kind harness,
// same consumer repository, same change (antrea 1.5.3 in examples/tce-packages), same machine
// inputs (node image, kind config, registry image, kapp-controller manifest), settle 0s:
//   baseline  `devpkg kind --settle 0s` (dist/cli.js on Node 24): from its spawn to the verdict;
//   measured  examples/workflows/devpkg-kind.yml on a pull_request, run by act as the workflow
//             tier runs it (test/workflows/helpers: stand-in checkout, owner/devpkg@<sha> from
//             this checkout's action.yml + dist/): from the job's first log line to the verdict.
// The verdict on both sides is the `verify` step's finishedAt in devpkg's results (kind results
// carry their steps). Goal (issue 33): act / CLI <= 1.2. Prints both timelines.
//
// The runs happen in bench/act-kind.bench.ts, a jest file run with the workflow tier's project
// (bench/jest.config.mjs), which hands the times back in a JSON file. It brings the kind engine up
// (test/harness/kind.sh up) and, if it started it, down again; the engine is one per machine.
// Usage: node bench/act-kind.bench.mjs [--reps N]   (after `npm run bundle`: both sides run dist/)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({ options: { reps: { type: 'string', default: '1' } } });
for (const f of ['dist/cli.js', 'dist/index.js']) {
  if (!existsSync(resolve(f))) {
    console.error(`bench: ${f} not found; run \`npm run bundle\` first`);
    process.exit(2);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-act-kind-'));
const file = join(dir, 'times.json');
try {
  const jest = spawnSync(process.execPath, ['--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--config', 'bench/jest.config.mjs', '--runInBand', 'bench/act-kind.bench.ts'], {
    stdio: 'inherit',
    env: { ...process.env, DEVPKG_BENCH_OUT: file, DEVPKG_BENCH_REPS: flags.reps },
  });
  if (jest.status !== 0 || !existsSync(file)) {
    console.error(`bench: the runs failed (jest exit ${jest.status})`);
    process.exit(1);
  }
  const t = JSON.parse(readFileSync(file, 'utf8'));
  const s = (ms) => (ms / 1000).toFixed(1).padStart(5);
  const at = (iso, t0) => (iso ? s(Date.parse(iso) - t0) : '    -');
  const devpkgSteps = (steps, t0) =>
    steps.map((x) => `    ${at(x.startedAt, t0)} ${at(x.finishedAt, t0)}  ${x.name}${x.state === 'done' ? '' : ` (${x.state})`}${x.waitedOn.length ? `  <- ${x.waitedOn.join(', ')}` : ''}`).join('\n');
  const firstStep = (steps) => Math.min(...steps.filter((x) => x.startedAt).map((x) => Date.parse(x.startedAt)));
  const ratios = [];
  t.cli.forEach((cli, i) => {
    const act = t.act[i];
    const a = cli.verdictAt - cli.startedAt;
    const b = act.verdictAt - act.jobStartedAt;
    ratios.push(b / a);
    console.log(`\n== run ${i + 1} (${t.order.slice(2 * i, 2 * i + 2).join(' then ')}); load average before each side and after: ${t.load.slice(2 * i, 2 * i + 3).map((l) => l[0].toFixed(2)).join(', ')}`);
    console.log(`CLI (seconds from its spawn): devpkg's first step ${s(firstStep(cli.result.steps) - cli.startedAt)}, verdict ${s(a)}, exit ${s(cli.exitedAt - cli.startedAt)}`);
    console.log(`  devpkg steps (started, finished, waited on):\n${devpkgSteps(cli.result.steps, cli.startedAt)}`);
    console.log(`act (seconds from the job's first log line; act spawned ${s(act.jobStartedAt - act.spawnedAt)} before it):`);
    console.log(`  act steps (first line, last line):\n${act.actSteps.map((x) => `    ${s(x.first - act.jobStartedAt)} ${s(x.last - act.jobStartedAt)}  ${x.name}`).join('\n')}`);
    console.log(`  devpkg's first step ${s(firstStep(act.result.steps) - act.jobStartedAt)}, verdict ${s(b)}${act.verdictLineAt ? ` (its line ${s(act.verdictLineAt - act.jobStartedAt)})` : ''}, act exit ${s(act.exitedAt - act.jobStartedAt)}`);
    console.log(`  devpkg steps (started, finished, waited on):\n${devpkgSteps(act.result.steps, act.jobStartedAt)}`);
    console.log(`CLI start to verdict:      ${s(a)} s (won ${cli.result.devVersion})`);
    console.log(`act job start to verdict:  ${s(b)} s (won ${act.result.devVersion})`);
    console.log(`ratio act/CLI: ${(b / a).toFixed(2)} (goal <= 1.20)`);
  });
  if (ratios.length > 1) console.log(`\nratios act/CLI: ${ratios.map((r) => r.toFixed(2)).join(', ')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

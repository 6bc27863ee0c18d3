#!/usr/bin/env node
// `npm run test:integration` and `npm run test:workflows`: the tier's files two at once (two
// slots), never two that would disturb each other (test/lanes.mjs: what each file needs of the
// kind engine, the control plane and its controllers, alone or shared). Each file is a jest run
// of its own in one of the slots, each slot with its own temp folder (the leak check of
// test/leak-environment.mjs sees only that slot's files, one after another as in band). The
// integration tier's harness is brought up once here (its globalSetup) before the files and down
// once (its globalTeardown) after them. Each file's lines are prefixed with its name; a table of
// the files (slot, start, seconds, outcome) is printed at the end.
//
//   node scripts/test-lanes.mjs integration|workflows [jest args...]
//
// With jest arguments (e.g. --testPathPatterns kind-mode), or DEVPKG_LANES=0, it is the plain jest
// run in band of before: one process, the files one after another. DEVPKG_LANES_ONLY=<regex> runs
// only the files whose path it matches, scheduled as the whole tier would be. DEVPKG_LANES_SLOTS=N
// (1 to 6, default 2) sets how many files run at once.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseExportLines } from '../test/harness/exports.mjs';
import { betweenEngineChecks, needsOf, nextToStart, queueOf, testFilesOf } from '../test/lanes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = { integration: 'test/integration', workflows: 'test/workflows' };
const [tier, ...jestArgs] = process.argv.slice(2);
if (!(tier in FOLDERS)) {
  console.error(`test-lanes: ${tier ?? '(none)'} is not a tier with lanes; use integration or workflows`);
  process.exit(2);
}
// Two by default. On two cores three were measured 7% faster for the integration tier (1120 s
// against 1199 s, 7 December 2026): the files that need the kind engine alone (777 s of them) run
// one after another whatever the slots, and with three the cores were busy 73% of the time
// against 60%, each file slower beside two others.
const SLOTS = process.env.DEVPKG_LANES_SLOTS ? Number(process.env.DEVPKG_LANES_SLOTS) : 2;
if (!Number.isInteger(SLOTS) || SLOTS < 1 || SLOTS > 6) {
  console.error(`test-lanes: DEVPKG_LANES_SLOTS=${process.env.DEVPKG_LANES_SLOTS} is not a whole number from 1 to 6 (how many files run at once)`);
  process.exit(2);
}
// jest's transform cache where a plain run keeps it (its default is under the temp folder, and a
// slot's temp folder is its own, removed at the end).
const jestCache = join(tmpdir(), `jest_${(process.getuid?.() ?? 0).toString(36)}`);
const jestCmd = (args) => [
  '--experimental-vm-modules', join(root, 'node_modules', 'jest', 'bin', 'jest.js'),
  '--selectProjects', tier, '--runInBand', `--cacheDirectory=${jestCache}`, ...args,
];

const harness = (script, ...args) => spawnSync('bash', [join(root, 'test', 'harness', script), ...args], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
const lastLines = (text, n = 15) => text.trim().split('\n').slice(-n).join('\n');

/**
 * What is on the kind engine, when it is up: its kind clusters and containers ('cluster NAME',
 * 'container NAME'); undefined when it is not up. The tier checks the engine whole before and
 * after its files: the files that share it check only what is theirs.
 */
function onEngine() {
  if (harness('kind.sh', 'status').status !== 0) return undefined;
  const env = { ...process.env, ...parseExportLines(harness('kind.sh', 'env').stdout) };
  const list = (cmd, args) => {
    const r = spawnSync(cmd, args, { env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`\`${cmd} ${args.join(' ')}\` on the kind engine failed: ${lastLines(`${r.error?.message ?? ''}${r.stderr ?? ''}`, 5)}`);
    return r.stdout.split('\n').filter(Boolean);
  };
  return [...list('kind', ['get', 'clusters']).map((c) => `cluster ${c}`), ...list('docker', ['ps', '-a', '--format', '{{.Names}}']).map((c) => `container ${c}`)];
}

/** One file: a jest run of its own, its output prefixed with its name, in its slot's temp folder. */
function runFile(file, slot, temp, t0) {
  const started = Date.now();
  const name = basename(file).replace(/\.test\.ts$/, '');
  const env = { ...process.env, TMPDIR: temp, DEVPKG_HARNESS_LANE: slot };
  const child = spawn(process.execPath, jestCmd(['--runTestsByPath', file]), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const prefix = (stream, out) => {
    let partial = '';
    stream.on('data', (d) => {
      const lines = (partial + d).split('\n');
      partial = lines.pop();
      for (const line of lines) out.write(`[${name}] ${line}\n`);
    });
    stream.on('end', () => partial && out.write(`[${name}] ${partial}\n`));
  };
  prefix(child.stdout, process.stdout);
  prefix(child.stderr, process.stderr);
  return new Promise((resolvePromise) => {
    const done = (failed) => {
      running.delete(child);
      resolvePromise({ file, slot, at: Math.round((started - t0) / 1000), seconds: Math.round((Date.now() - started) / 1000), failed });
    };
    child.on('error', (e) => done(`could not start: ${e.message}`));
    child.on('close', (code, signal) => done(code === 0 ? '' : signal ?? `exit ${code}`));
  });
}

const running = new Set();
let stopping = '';

/** The files a few at once (one per slot), each started when what it needs is free; resolves with each file's outcome. */
async function runQueue(queue, temps, t0) {
  const results = [];
  const active = new Map(); // slot -> { file, promise }
  const pending = [...queue];
  while ((pending.length > 0 && !stopping) || active.size > 0) {
    for (const slot of Object.keys(temps)) {
      if (active.has(slot) || stopping) continue;
      const file = nextToStart(pending, [...active.values()].map((a) => a.file), tier);
      if (!file) break;
      pending.splice(pending.indexOf(file), 1);
      active.set(slot, { file, promise: runFile(file, slot, temps[slot], t0).then((r) => ({ slot, r })) });
    }
    if (active.size === 0) {
      // Nothing runs and nothing may start: only possible if a file's needs conflict with nothing running, a bug here.
      throw new Error(`test-lanes: none of ${pending.join(', ')} can start with nothing running`);
    }
    const { slot, r } = await Promise.race([...active.values()].map((a) => a.promise));
    active.delete(slot);
    results.push(r);
  }
  for (const file of pending) results.push({ file, slot: '-', at: 0, seconds: 0, failed: `not run (${stopping})` });
  return results;
}

async function runLanes() {
  const folder = FOLDERS[tier];
  let queue;
  try {
    queue = queueOf(testFilesOf(root, folder), folder);
    if (process.env.DEVPKG_LANES_ONLY) {
      // Some of the files, scheduled as the whole tier would be (e.g. kind files side by side).
      const only = new RegExp(process.env.DEVPKG_LANES_ONLY);
      queue = queue.filter((f) => only.test(f));
      if (queue.length === 0) throw new Error(`DEVPKG_LANES_ONLY=${process.env.DEVPKG_LANES_ONLY} matches none of ${folder}/'s test files`);
    }
  } catch (e) {
    console.error(`test-lanes: ${e.message}`);
    return 2;
  }
  const config = (await import(pathToFileURL(join(root, 'jest.config.js')).href)).default;
  const project = config.projects.find((p) => p.displayName === tier);
  const hook = async (key) => project[key] && (await import(pathToFileURL(project[key].replace('<rootDir>', root)).href)).default;
  const [setup, teardown] = [await hook('globalSetup'), await hook('globalTeardown')];
  // What each file leaves in its slot's temp folder is its leak check's; what appears in the temp
  // folder itself (a process that ignores TMPDIR) is checked here, before and after the tier.
  const { ours } = await import(pathToFileURL(join(root, 'test', 'leak-environment.mjs')).href);
  const before = new Set(ours());
  const t0 = Date.now();
  // Each slot's temp folder directly in the temp folder: a path one level deeper made the sockets
  // of an engine a test starts in it (kind-harness: .../kind/exec/containerd/containerd.sock.ttrpc)
  // longer than a unix socket's 107 bytes, and that dockerd never came up.
  const temps = Object.fromEntries('abcdef'.slice(0, SLOTS).split('').map((slot) => [slot, mkdtempSync(join(tmpdir(), `devpkg-${slot}-`))]));
  let results = [];
  let failure = '';
  // A tier without a global setup (workflows) owns the kind engine and the control plane its files
  // share: it brings the engine up before them (when one needs it) and stops what it started after
  // them; a file there never stops them (helpers/kind.ts stopsAtEnd).
  const owns = !setup;
  const upBefore = owns ? { engine: harness('kind.sh', 'status').status === 0, controlPlane: harness('controlplane.sh', 'status').status === 0 } : undefined;
  try {
    if (setup) await setup(); // throws with the reason when the harness cannot start (it stops what it started)
    if (owns && queue.some((f) => needsOf(f, tier).engine)) {
      const up = harness('kind.sh', 'up');
      if (up.status !== 0) throw new Error(`the kind engine did not start (test/harness/kind.sh up exited with ${up.status ?? up.signal}):\n${lastLines(up.stderr)}`);
    }
    await betweenEngineChecks(onEngine, async () => {
      results = await runQueue(queue, temps, t0);
    });
  } catch (e) {
    failure = e.message;
    console.error(`test-lanes: ${tier}: ${e.message}`);
  } finally {
    try {
      if (teardown) await teardown();
      if (owns && !upBefore.controlPlane && harness('controlplane.sh', 'status').status === 0) {
        const down = harness('controlplane.sh', 'down'); // the engine in its state folder too
        if (down.status !== 0) throw new Error(`test/harness/controlplane.sh down exited with ${down.status ?? down.signal}:\n${lastLines(down.stderr)}`);
      }
      if (owns && !upBefore.engine && harness('kind.sh', 'status').status === 0) {
        const down = harness('kind.sh', 'down');
        if (down.status !== 0) throw new Error(`test/harness/kind.sh down exited with ${down.status ?? down.signal}:\n${lastLines(down.stderr)}`);
      }
    } catch (e) {
      failure ||= `the harness did not stop cleanly: ${e.message}`;
      console.error(`test-lanes: ${tier}: the harness did not stop cleanly: ${e.message}`);
    }
    for (const temp of Object.values(temps)) {
      try {
        rmSync(temp, { recursive: true, force: true });
      } catch (e) {
        failure ||= `${temp} could not be removed: ${e.message}`;
        console.error(`test-lanes: ${tier}: ${temp} could not be removed (a mount a test left?): ${e.message}`);
      }
    }
  }
  const slots = new Set(Object.values(temps).map((t) => basename(t)));
  const left = ours().filter((n) => !before.has(n) && !slots.has(n));
  if (left.length > 0) {
    failure ||= `left in ${tmpdir()}: ${left.join(', ')}`;
    console.error(`test-lanes: ${tier}: left in ${tmpdir()} by the tier (not in a slot's temp folder), now removed: ${left.join(', ')}`);
    for (const n of left) rmSync(join(tmpdir(), n), { recursive: true, force: true });
  }
  const failed = results.filter((r) => r.failed);
  console.error(`== ${tier}: ${results.length} files, ${SLOTS} at once, in ${Math.round((Date.now() - t0) / 1000)}s${failed.length ? `; ${failed.length} failed` : ''}${failure ? `; ${failure}` : ''}`);
  for (const r of [...results].sort((x, y) => x.at - y.at)) {
    console.error(`   ${r.slot} ${String(r.at).padStart(6)}s +${String(r.seconds).padStart(4)}s  ${r.file}${r.failed ? `  FAILED (${r.failed})` : ''}`);
  }
  return failed.length > 0 || failure ? 1 : 0;
}

if (jestArgs.length > 0 || process.env.DEVPKG_LANES === '0') {
  const child = spawn(process.execPath, jestCmd(jestArgs), { cwd: root, stdio: 'inherit' });
  child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  // Stopped (Ctrl-C, a CI cancel): the running files are told, none is started, the harness is stopped.
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.on(signal, () => {
      stopping = signal;
      for (const child of running) child.kill(signal);
    });
  }
  process.exit(await runLanes());
}

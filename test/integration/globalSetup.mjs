// Jest global setup of the integration tier: bring the devpkg test harness up once
// (test/harness/controlplane.sh up [--kapp-controller]) and put its exports into
// process.env, where the tests (and the tools they run) find KUBECONFIG,
// DEVPKG_TEST_REGISTRY, DEVPKG_HARNESS_DIR and a PATH with the built tools first.
//
// If the harness cannot start, this throws with the reason and the tail of the
// process logs: the tier fails, it never skips.
//
// DEVPKG_HARNESS_KAPP_CONTROLLER=1|0 turns kapp-controller on or off; by default it is on
// when test/harness/kapp-controller.sh exists. DEVPKG_HARNESS_TKG=1|0 likewise for the stand-in TKG
// controllers (test/standin/tkg-controllers, started by test/harness/tkg.sh; `up --tkg` implies kapp-controller).
//
// The kind harness (test/harness/kind.sh) is built here too (`kind.sh build`: a cold build takes
// long, longer than a test may), but not started: the kind test files start its engine
// (helpers/kind.ts) and teardown stops it. DEVPKG_HARNESS_KIND=0 skips the build.
//
// Cluster API's core manager (test/harness/capi.sh) is built here likewise (about 5 min cold) but
// not started: the files that need it start it (`capi.sh up`) and stop it (`capi.sh down`);
// `controlplane.sh down` stops it too. DEVPKG_HARNESS_CAPI=0 skips the build.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseExportLines } from '../harness/exports.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const controlplane = join(root, 'test', 'harness', 'controlplane.sh');
const kappControllerScript = join(root, 'test', 'harness', 'kapp-controller.sh');
const kindScript = join(root, 'test', 'harness', 'kind.sh');
const tkgScript = join(root, 'test', 'harness', 'tkg.sh');
const capiScript = join(root, 'test', 'harness', 'capi.sh');

function wantKappController() {
  const v = process.env.DEVPKG_HARNESS_KAPP_CONTROLLER;
  if (v === undefined || v === '') return existsSync(kappControllerScript);
  return !['0', 'false', 'no', 'off'].includes(v.toLowerCase());
}

function wantKind() {
  const v = process.env.DEVPKG_HARNESS_KIND;
  if (v === undefined || v === '') return existsSync(kindScript);
  return !['0', 'false', 'no', 'off'].includes(v.toLowerCase());
}

function wantCapi() {
  const v = process.env.DEVPKG_HARNESS_CAPI;
  if (v === undefined || v === '') return existsSync(capiScript);
  return !['0', 'false', 'no', 'off'].includes(v.toLowerCase());
}

function wantTkg() {
  const v = process.env.DEVPKG_HARNESS_TKG;
  if (v === undefined || v === '') return existsSync(tkgScript);
  return !['0', 'false', 'no', 'off'].includes(v.toLowerCase());
}

function run(args, script = controlplane) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [script, ...args], {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let partial = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      // Show the harness's own progress lines (a cold build takes a while); keep the
      // rest (go's download chatter) for the error message and the setup log.
      partial += d;
      const lines = partial.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('[harness')) process.stderr.write(`${line}\n`);
      }
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code: code ?? 128, signal, stdout, stderr }));
  });
}

function tail(text, n) {
  return text.split('\n').filter(Boolean).slice(-n).join('\n');
}

function logTails(harnessDir, n = 40) {
  const dir = join(harnessDir, 'logs');
  if (!existsSync(dir)) return `(no process logs in ${dir})`;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => `--- ${join(dir, f)} (last ${n} lines) ---\n${tail(readFileSync(join(dir, f), 'utf8'), n)}`)
    .join('\n');
}

export default async function globalSetup() {
  // A lane of scripts/test-lanes.mjs: the harness is the tier's, brought up before the lanes, its
  // exports already in this process's environment.
  if (process.env.DEVPKG_HARNESS_LANE && process.env.DEVPKG_HARNESS_UP === '1') return;
  const harnessDir = process.env.DEVPKG_HARNESS_DIR || '/tmp/devpkg-harness';
  const args = ['up'];
  if (wantKappController()) args.push('--kapp-controller');
  if (wantTkg()) args.push('--tkg');

  // Left running by someone before the tests (e.g. a developer's `controlplane.sh up`)?
  // Then teardown leaves it running too.
  const before = await run(['status']);
  globalThis.__DEVPKG_HARNESS_PREEXISTING__ = before.code === 0;

  const started = Date.now();
  const result = await run(args);
  const setupLog = join(tmpdir(), 'devpkg-harness-setup.log');
  writeFileSync(setupLog, result.stderr);
  if (result.code !== 0) {
    const logs = logTails(harnessDir);
    if (process.env.DEVPKG_HARNESS_KEEP !== '1' && !globalThis.__DEVPKG_HARNESS_PREEXISTING__) {
      await run(['down']); // stop what did start; the logs are in the message below
    }
    throw new Error(
      `The devpkg test harness did not start: \`test/harness/controlplane.sh ${args.join(' ')}\` ` +
        `exited with ${result.signal ?? result.code}. Full output: ${setupLog}.\n` +
        `--- last lines of its output ---\n${tail(result.stderr, 40)}\n${logs}`,
    );
  }
  const exported = parseExportLines(result.stdout);
  for (const required of ['KUBECONFIG', 'DEVPKG_TEST_REGISTRY', 'DEVPKG_HARNESS_DIR', 'PATH']) {
    if (!exported[required]) {
      throw new Error(
        `The devpkg test harness started but did not export ${required}; its stdout was:\n${result.stdout}`,
      );
    }
  }
  Object.assign(process.env, exported);
  process.env.DEVPKG_HARNESS_UP = '1';
  if (wantKind()) {
    globalThis.__DEVPKG_KIND_PREEXISTING__ = (await run(['status'], kindScript)).code === 0;
    const kind = await run(['build'], kindScript);
    writeFileSync(setupLog, kind.stderr, { flag: 'a' });
    if (kind.code !== 0) {
      if (process.env.DEVPKG_HARNESS_KEEP !== '1' && !globalThis.__DEVPKG_HARNESS_PREEXISTING__) await run(['down']);
      throw new Error(
        `The kind harness did not build: \`test/harness/kind.sh build\` exited with ${kind.signal ?? kind.code}. ` +
          `Full output: ${setupLog}.\n--- last lines of its output ---\n${tail(kind.stderr, 40)}`,
      );
    }
  }
  if (wantCapi()) {
    const capi = await run(['build'], capiScript);
    writeFileSync(setupLog, capi.stderr, { flag: 'a' });
    if (capi.code !== 0) {
      if (process.env.DEVPKG_HARNESS_KEEP !== '1' && !globalThis.__DEVPKG_HARNESS_PREEXISTING__) await run(['down']);
      throw new Error(
        `Cluster API's manager did not build: \`test/harness/capi.sh build\` exited with ${capi.signal ?? capi.code}. ` +
          `Full output: ${setupLog}.\n--- last lines of its output ---\n${tail(capi.stderr, 40)}`,
      );
    }
  }
  process.stderr.write(
    `[harness] ready in ${Math.round((Date.now() - started) / 1000)}s: apiserver ${exported.DEVPKG_TEST_APISERVER}, ` +
      `registry ${exported.DEVPKG_TEST_REGISTRY}, state ${exported.DEVPKG_HARNESS_DIR}\n`,
  );
}

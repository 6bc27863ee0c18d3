#!/usr/bin/env node
// Benchmark: pushing a bundle with devpkg as a ratio against the named baseline, a bare
//   imgpkg push -b REPO:TAG -f DIR
// of the same bundle folder to the same registry. Target (DESIGN.md): at most 1.1x.
//
// Two measurements:
//   1. pushBundle() (what the action runs, once per package, in its one node process), the
//      imgpkg child included, against the baseline spawned from the same process. This is the
//      1.1x target. src/ is transpiled (typescript.transpileModule, no type check) into a temp
//      folder to import it, so no tsx or ts-node is involved.
//   2. `node dist/cli.js push ...` end to end, for context: it also pays node's start-up and
//      module loading once per command, which no ratio against a Go binary can hide.
//
// The bundle is TCE-sized (about 40 YAML files, ~330 KB, plus .imgpkg/images.yml). Before
// every single push a marker file in the bundle changes, so each push uploads a new layer
// (nothing is skipped as "already there"); baseline and devpkg alternate which goes first.
//
// Registry: --registry HOST:PORT, else DEVPKG_TEST_REGISTRY, else a docker-registry (Debian's
// package) started here on a free loopback port and stopped at the end.
//
// Usage: node bench/push.bench.mjs [--reps N] [--cli dist/cli.js] [--registry HOST:PORT]
//   (build dist first: npm run bundle; imgpkg must be on PATH)
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    reps: { type: 'string', default: '15' },
    cli: { type: 'string', default: 'dist/cli.js' },
    registry: { type: 'string' },
    files: { type: 'string', default: '40' },
  },
});
const REPS = Number(flags.reps);
const CLI = resolve(flags.cli);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const haveCli = existsSync(CLI);
if (!haveCli) console.error(`bench: ${CLI} not found (npm run bundle); measuring pushBundle() only`);
if (spawnSync('imgpkg', ['version'], { encoding: 'utf8' }).status !== 0) {
  console.error('bench: imgpkg is not on PATH');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'devpkg-bench-push-'));
let registryProc;

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

async function startRegistry() {
  const port = await freePort();
  const cfg = join(work, 'registry.yml');
  writeFileSync(
    cfg,
    `version: 0.1\nlog: {level: error}\nstorage: {filesystem: {rootdirectory: ${join(work, 'registry')}}}\nhttp: {addr: "127.0.0.1:${port}", secret: bench}\n`,
  );
  const fd = openSync(join(work, 'registry.log'), 'a');
  registryProc = spawn('docker-registry', ['serve', cfg], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const host = `127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`http://${host}/v2/`).then((r) => r.ok, () => false);
    if (ok) return host;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('docker-registry did not start; see ' + join(work, 'registry.log'));
}

/** src/**.ts (tests excluded) -> .js with typescript.transpileModule, into dir/src; node_modules linked. */
async function transpileSrc(dir) {
  const ts = (await import('typescript')).default;
  const srcRoot = join(ROOT, 'src');
  for (const e of readdirSync(srcRoot, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || !e.name.endsWith('.ts') || e.name.endsWith('.test.ts') || e.name.endsWith('.d.ts')) continue;
    const file = join(e.parentPath, e.name);
    const out = join(dir, 'src', relative(srcRoot, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
      fileName: file,
    });
    writeFileSync(out, outputText);
  }
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Spawns a program and resolves with its wall time (the way execTool runs imgpkg). */
function spawnTimed(cmd, args) {
  return new Promise((resolvePromise, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stdout.resume();
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      code === 0 ? resolvePromise(ms) : reject(new Error(`${cmd} ${args.join(' ')} failed (${code}): ${err}`));
    });
  });
}

function makeBundle(dir, nfiles) {
  mkdirSync(join(dir, '.imgpkg'), { recursive: true });
  mkdirSync(join(dir, 'config', 'upstream'), { recursive: true });
  writeFileSync(
    join(dir, '.imgpkg', 'images.yml'),
    'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages:\n' +
      '- image: projects.registry.vmware.com/tce/antrea/antrea-advanced-debian@sha256:' + 'a1'.repeat(32) + '\n',
  );
  writeFileSync(join(dir, 'config', 'values.yaml'), '#@data/values\n---\nnamespace: kube-system\n');
  for (let i = 0; i < nfiles; i++) {
    const pad = `    # ${'x'.repeat(70)}\n`.repeat(100);
    writeFileSync(
      join(dir, 'config', 'upstream', `part-${i}.yaml`),
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: part-${i}\ndata:\n  key: |\n${pad}`,
    );
  }
}

function time(cmd, args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  return { ms, stdout: r.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

try {
  const registry = flags.registry ?? process.env.DEVPKG_TEST_REGISTRY ?? (await startRegistry());
  const bundle = join(work, 'antrea', '1.2.3', 'bundle');
  makeBundle(bundle, Number(flags.files));
  const du = spawnSync('du', ['-sk', bundle], { encoding: 'utf8' }).stdout.split('\t')[0];
  const run = Date.now().toString(36);
  const repo = `${registry}/devpkg-bench/push-${run}`;
  console.log(`bundle: ${Number(flags.files) + 2} files, ${du} KB; registry ${registry}; ${REPS} reps (+1 warm-up each)`);

  const marker = join(bundle, 'config', 'marker.yaml');
  let seq = 0;
  const touch = () => writeFileSync(marker, `#! ${run} ${seq++}\n`);
  const report = (label, b, d, ratios) => {
    console.log(`  baseline  imgpkg push -b REPO:TAG -f DIR   median ${median(b).toFixed(1)} ms`);
    console.log(`  devpkg    ${label.padEnd(30)} median ${median(d).toFixed(1)} ms`);
    console.log(`  ratio devpkg/baseline: median of per-pair ratios ${median(ratios).toFixed(3)}x, ratio of medians ${(median(d) / median(b)).toFixed(3)}x`);
  };

  // ---- 1. pushBundle() in-process (the target) ----
  const lib = await transpileSrc(join(work, 'lib'));
  const { pushBundle } = await import(pathToFileURL(join(lib, 'src', 'bundle', 'push.js')).href);
  const { Imgpkg } = await import(pathToFileURL(join(lib, 'src', 'tools', 'imgpkg.js')).href);
  const imgpkg = await Imgpkg.create();
  const baselineIn = async (tag) => {
    touch();
    return spawnTimed('imgpkg', ['push', '-b', `${repo}:${tag}`, '-f', bundle]);
  };
  const devpkgIn = async (tag) => {
    touch();
    const t0 = process.hrtime.bigint();
    const r = await pushBundle({ bundleDir: bundle, repository: repo, tag, imgpkg });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (!/@sha256:[a-f0-9]{64}$/.test(r.image)) throw new Error(`pushBundle returned ${JSON.stringify(r)}`);
    return ms;
  };
  await baselineIn('warm-b');
  await devpkgIn('warm-d');
  {
    const b = [];
    const d = [];
    const ratios = [];
    for (let i = 0; i < REPS; i++) {
      const [x, y] = i % 2 === 0
        ? [await baselineIn(`b${i}`), await devpkgIn(`d${i}`)]
        : (([dd, bb]) => [bb, dd])([await devpkgIn(`d${i}`), await baselineIn(`b${i}`)]);
      b.push(x);
      d.push(y);
      ratios.push(y / x);
    }
    console.log('1. pushBundle() in the action\'s process vs the baseline spawned from the same process (target <= 1.1x):');
    report('pushBundle()', b, d, ratios);
  }

  // ---- 2. the CLI end to end (context) ----
  if (haveCli) {
    const baseline = (tag) => {
      touch();
      return time('imgpkg', ['push', '-b', `${repo}:${tag}`, '-f', bundle]);
    };
    const devpkg = (tag) => {
      touch();
      const r = time(process.execPath, [CLI, 'push', '--bundle', bundle, '--image', `${repo}:${tag}`]);
      if (!/@sha256:[a-f0-9]{64}\n$/.test(r.stdout)) throw new Error(`devpkg push printed ${JSON.stringify(r.stdout)}`);
      return r;
    };
    baseline('cwarm-b');
    devpkg('cwarm-d');
    const b = [];
    const d = [];
    const ratios = [];
    for (let i = 0; i < REPS; i++) {
      let rb;
      let rd;
      if (i % 2 === 0) {
        rb = baseline(`cb${i}`);
        rd = devpkg(`cd${i}`);
      } else {
        rd = devpkg(`cd${i}`);
        rb = baseline(`cb${i}`);
      }
      b.push(rb.ms);
      d.push(rd.ms);
      ratios.push(rd.ms / rb.ms);
    }
    const nodeStart = median(Array.from({ length: 5 }, () => time(process.execPath, ['-e', '0']).ms));
    console.log(`2. node ${flags.cli} push end to end (context; includes node start-up, node -e 0 median ${nodeStart.toFixed(1)} ms):`);
    report('devpkg push (CLI)', b, d, ratios);
  }
} finally {
  if (registryProc && registryProc.exitCode === null) {
    const exited = new Promise((r) => registryProc.once('exit', r));
    registryProc.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
}

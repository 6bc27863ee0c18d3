#!/usr/bin/env node
// Benchmark: change detection (and plan, when it works) over a large history, as a ratio
// against the named baseline `git diff --name-only <base> <head>` on the same range.
//
// Generates (with git fast-import, in a temp dir) a TCE-layout repository of
// 50 packages x 10 versions (~12 files each) built up over 500 commits, then times
//   baseline: git diff --name-only <root> <head>
//   devpkg:   node dist/cli.js detect --repo R --base <root> --head <head> --json
//   devpkg:   node dist/cli.js plan   --repo R --base <root> --head <head> --json   (if it runs)
// Target (DESIGN.md): planning at most 2x the baseline. Prints medians and the median ratio.
//
// Recognition cases (issue 35), each as a ratio against the named baseline `find DIR -type f`
// (lists the same tree, reads no file):
//   bundle: plan --all on a 20-package repository bundle of ~400 KB (a 750-key map per Package:
//           the yaml library's own duplicate-key check is quadratic in a map's keys). Target < 0.4 s.
//   tce:    plan --all on a real TCE tree (--tce DIR: a checkout of vmware-tanzu/community-edition,
//           never committed; skipped without it). Target < 1 s.
//
// Then the base-side case (issue 35): `plan --base` on a package repository of 20 packages x 60
// files (packages/<refName>/metadata.yml and 59 version files each; the head commit adds a
// version to every package, so every load reads the base side). Every git the run starts is
// counted through a PATH wrapper: the target is one `git cat-file --batch` for the base side and a
// process count that does not grow with packages or files. Prints the count and the median time.
//
// Usage: node bench/plan.bench.mjs [--reps N] [--cli dist/cli.js] [--keep] [--cases history,bundle,tce,base]
//   [--tce DIR] [--base-packages 20] [--base-files 60] [--base-reps 5]
//   (build dist first: npm run bundle)
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: flags } = parseArgs({
  options: {
    reps: { type: 'string', default: '15' },
    cli: { type: 'string', default: 'dist/cli.js' },
    packages: { type: 'string', default: '50' },
    versions: { type: 'string', default: '10' },
    commits: { type: 'string', default: '500' },
    keep: { type: 'boolean', default: false },
    cases: { type: 'string', default: 'history,bundle,tce,base' },
    tce: { type: 'string' },
    'base-packages': { type: 'string', default: '20' },
    'base-files': { type: 'string', default: '60' },
    'base-reps': { type: 'string', default: '5' },
  },
});
const CASES = new Set(flags.cases.split(','));
const REPS = Number(flags.reps);
const NPKG = Number(flags.packages);
const NVER = Number(flags.versions);
const NCOMMITS = Number(flags.commits);
const CLI = resolve(flags.cli);
const PD = 'addons/packages';
if (!existsSync(CLI)) {
  console.error(`bench: ${CLI} not found; run \`npm run bundle\` first`);
  process.exit(2);
}

function git(cwd, args, input) {
  const r = spawnSync('git', args, { cwd, input, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

// ---- repository generation (one fast-import stream) ----

const hex = (n, len = 64) => {
  let s = '';
  let x = (n * 2654435761) >>> 0;
  while (s.length < len) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += x.toString(16).padStart(8, '0');
  }
  return s.slice(0, len);
};
const pkgName = (p) => `pkg${String(p).padStart(2, '0')}`;
const refName = (p) => `${pkgName(p)}.community.tanzu.vmware.com`;
const version = (v) => `1.${v}.0${v % 3 === 2 ? `+vmware.${v}` : ''}`;

function packageYaml(p, v, rev) {
  const ver = version(v);
  return `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: ${refName(p)}.${ver}
spec:
  refName: ${refName(p)}
  version: ${ver}
  releaseNotes: "${pkgName(p)} ${ver} (revision ${rev})"
  releasedAt: 2022-03-01T00:00:00Z
  licenses:
    - "Apache 2.0"
  template:
    spec:
      fetch:
        - imgpkgBundle:
            image: projects.registry.vmware.com/tce/${pkgName(p)}@sha256:${hex(p * 100 + v + rev * 7)}
      template:
        - ytt:
            paths:
              - config/
        - kbld:
            paths:
              - "-"
              - .imgpkg/images.yml
      deploy:
        - kapp: {}
  valuesSchema:
    openAPIv3:
      title: ${refName(p)}.${ver} values schema
      type: object
      properties:
        namespace:
          type: string
          default: kube-system
`;
}

function versionFiles(p, v, rev) {
  const base = `${PD}/${pkgName(p)}/${version(v)}`;
  const files = {
    [`${base}/package.yaml`]: packageYaml(p, v, rev),
    [`${base}/README.md`]: `# ${pkgName(p)} ${version(v)}\n`,
    [`${base}/bundle/vendir.yml`]: `apiVersion: vendir.k14s.io/v1alpha1\nkind: Config\ndirectories: []\n`,
    [`${base}/bundle/.imgpkg/images.yml`]: `apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages:\n- image: projects.registry.vmware.com/tce/${pkgName(p)}-agent@sha256:${hex(p + v * 31)}\n`,
    [`${base}/bundle/config/values.yaml`]: `#@data/values\n---\nnamespace: kube-system\nrevision: ${rev}\n`,
    [`${base}/bundle/config/overlays/update.yaml`]: `#@ load("@ytt:overlay", "overlay")\n#@overlay/match by=overlay.all\n---\nmetadata:\n  labels:\n    rev: "${rev}"\n`,
  };
  for (let k = 0; k < 6; k++) {
    files[`${base}/bundle/config/upstream/part-${k}.yaml`] = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${pkgName(p)}-${k}\ndata:\n  v: "${version(v)}"\n  rev: "${rev}"\n${'  pad: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"\n'.repeat(20)}`;
  }
  return files;
}

function fastImportStream() {
  const parts = [];
  const push = (s) => parts.push(Buffer.from(s, 'utf8'));
  const data = (text) => {
    const b = Buffer.from(text, 'utf8');
    push(`data ${b.length}\n`);
    parts.push(b, Buffer.from('\n'));
  };
  let t = 1_600_000_000;
  let mark = 0;
  const commit = (msg, files, deletes = []) => {
    mark++;
    push(`commit refs/heads/main\nmark :${mark}\ncommitter Bench <bench@devpkg.invalid> ${t++} +0000\n`);
    data(msg);
    if (mark > 1) push(`from :${mark - 1}\n`);
    for (const d of deletes) push(`D ${d}\n`);
    for (const [path, text] of Object.entries(files)) {
      push(`M 100644 inline ${path}\n`);
      data(text);
    }
  };
  // Root commit: only repository-level files; every version arrives in the history after it.
  commit('root', { 'README.md': '# packages\n', 'Makefile': 'all:\n\ttrue\n' });
  const total = NPKG * NVER;
  for (let i = 0; i < NCOMMITS; i++) {
    const files = {};
    if (i < total) {
      // Each commit adds one version folder (package-major order keeps versions rising).
      const p = i % NPKG;
      const v = Math.floor(i / NPKG);
      Object.assign(files, versionFiles(p, v, 0));
      if (v === 0) {
        files[`${PD}/${pkgName(p)}/metadata.yaml`] = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${refName(p)}\n`;
        files[`${PD}/${pkgName(p)}/test/values-test.yaml`] = `namespace: test\n`;
      }
    }
    // Plus an edit of an older version, as maintenance commits do.
    if (i > 0) {
      const j = (i * 37) % Math.min(i, total);
      const p = j % NPKG;
      const v = Math.floor(j / NPKG);
      files[`${PD}/${pkgName(p)}/${version(v)}/bundle/config/values.yaml`] = `#@data/values\n---\nnamespace: kube-system\nrevision: ${i}\n`;
    }
    commit(`commit ${i}`, files);
  }
  push('done\n');
  return Buffer.concat(parts);
}

function makeRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-bench-plan-'));
  git(dir, ['init', '-q', '-b', 'main']);
  const t0 = process.hrtime.bigint();
  git(dir, ['fast-import', '--quiet', '--done'], fastImportStream());
  // plan reads package.yaml from the work tree.
  git(dir, ['checkout', '-q', '-f', 'main']);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const root = git(dir, ['rev-list', '--max-parents=0', 'main']);
  const head = git(dir, ['rev-parse', 'main']);
  const commits = Number(git(dir, ['rev-list', '--count', 'main']));
  const files = git(dir, ['ls-files']).split('\n').length;
  return { dir, root, head, commits, files, ms };
}

// ---- timing ----
// Wall time suffers from whatever else runs on the machine; CPU time (user+sys of the whole
// process tree, read from /proc/self/stat once spawnSync has reaped it) much less so. Both are
// reported. CPU time has clock-tick resolution, so each measurement runs a batch of runs.


const TICK_MS = 10; // USER_HZ is 100 on Linux
function childCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields 16 and 17 (cutime, cstime) are at 13 and 14 after the command name
  return (Number(f[13]) + Number(f[14])) * TICK_MS;
}

function run(cmd, args, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, ...r };
}

/** Runs a batch; returns wall and CPU milliseconds per run. */
function batch(cmd, args, cwd, n) {
  const c0 = childCpuMs();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 2).join(' ')} failed: ${r.stderr}`);
  }
  const wall = Number(process.hrtime.bigint() - t0) / 1e6 / n;
  return { wall, cpu: (childCpuMs() - c0) / n };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
// Enough runs per batch for ~300 ms of work (tick resolution), at most 20.
const batchSize = (ms) => Math.max(1, Math.min(20, Math.round(300 / Math.max(ms, 1))));

if (CASES.has('history')) history();
if (CASES.has('bundle') || CASES.has('tce')) recognition();
if (CASES.has('base')) baseCase();

function history() {
const repo = makeRepo();
console.log(`repository: ${NPKG} packages x ${NVER} versions, ${repo.commits} commits, ${repo.files} files (generated in ${repo.ms.toFixed(0)} ms) at ${repo.dir}`);
console.log(`range: ${repo.root.slice(0, 12)}..${repo.head.slice(0, 12)} (the whole history)`);

const baseline = { name: 'git diff --name-only', cmd: 'git', args: ['diff', '--name-only', repo.root, repo.head] };
const noop = { name: 'node -e 0', cmd: process.execPath, args: ['-e', '0'] };
const cases = [
  { name: 'detect', cmd: process.execPath, args: [CLI, 'detect', '--repo', repo.dir, '--base', repo.root, '--head', repo.head, '--json'] },
  { name: 'plan', cmd: process.execPath, args: [CLI, 'plan', '--repo', repo.dir, '--base', repo.root, '--head', repo.head, '--json'] },
];

// Check outputs once (also warms the page cache) and size the batches.
const b0 = run(baseline.cmd, baseline.args, repo.dir);
if (b0.status !== 0) throw new Error(`baseline failed: ${b0.stderr}`);
console.log(`baseline: ${baseline.name} lists ${b0.stdout.trim().split('\n').length} files`);
baseline.n = batchSize(b0.ms);
noop.n = batchSize(run(noop.cmd, noop.args).ms);
const active = [];
for (const c of cases) {
  const r = run(c.cmd, c.args, repo.dir);
  let count;
  try {
    count = r.status === 0 ? JSON.parse(r.stdout).packages.length : undefined;
  } catch {
    count = undefined;
  }
  if (count === undefined) {
    console.log(`${c.name}: skipped (exit ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' / ')}`);
    continue;
  }
  if (count !== NPKG * NVER) console.log(`${c.name}: WARNING: expected ${NPKG * NVER} package versions, got ${count}`);
  console.log(`${c.name}: reports ${count} package versions (first run ${r.ms.toFixed(0)} ms)`);
  c.n = batchSize(r.ms);
  // A slow command gets fewer repetitions rather than a bench that runs for an hour.
  c.reps = r.ms > 5000 ? Math.min(REPS, 3) : REPS;
  active.push(c);
}

const all = [baseline, noop, ...active];
for (const c of all) Object.assign(c, { wall: [], cpu: [], wallRatio: [], cpuRatio: [] });
for (let i = 0; i < REPS; i++) {
  // Interleaved, so drift on a shared machine hits every command alike.
  const b = batch(baseline.cmd, baseline.args, repo.dir, baseline.n);
  baseline.wall.push(b.wall);
  baseline.cpu.push(b.cpu);
  for (const c of [noop, ...active]) {
    if (c.reps !== undefined && i >= c.reps) continue;
    const m = batch(c.cmd, c.args, repo.dir, c.n);
    c.wall.push(m.wall);
    c.cpu.push(m.cpu);
    c.wallRatio.push(m.wall / b.wall);
    c.cpuRatio.push(m.cpu / Math.max(b.cpu, 0.1));
  }
}

const fmt = (ms) => `${ms.toFixed(1)} ms`.padStart(10);
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log('');
console.log(`repetitions: ${REPS} (batches of runs; load average ${load})`);
console.log(`${'command'.padEnd(24)} ${'wall'.padStart(10)} ${'cpu'.padStart(10)}   ratio vs baseline (median): wall / cpu`);
console.log(`${('baseline ' + baseline.name).padEnd(24)} ${fmt(median(baseline.wall))} ${fmt(median(baseline.cpu))}`);
for (const c of [noop, ...active]) {
  const w = median(c.wallRatio);
  const u = median(c.cpuRatio);
  const verdict = c === noop ? '(reference: node start-up alone)' : `target <= 2x: ${w <= 2 ? 'met' : 'NOT met'}`;
  console.log(`${c.name.padEnd(24)} ${fmt(median(c.wall))} ${fmt(median(c.cpu))}   ${w.toFixed(2)}x / ${u.toFixed(2)}x   ${verdict}`);
}
// What devpkg itself adds on top of starting a Node process at all.
for (const c of active) {
  const w = (median(c.wall) - median(noop.wall)) / median(baseline.wall);
  const u = (median(c.cpu) - median(noop.cpu)) / Math.max(median(baseline.cpu), 0.1);
  console.log(`${(c.name + ' minus node -e 0').padEnd(24)} ${fmt(median(c.wall) - median(noop.wall))} ${fmt(median(c.cpu) - median(noop.cpu))}   ${w.toFixed(2)}x / ${u.toFixed(2)}x`);
}

if (!flags.keep) rmSync(repo.dir, { recursive: true, force: true });
}

// ---- recognition: plan --all where most files are no package, against `find -type f` ----

/** A package repository bundle: packages/<refName>/{metadata.yml,<version>.yml}, big valuesSchema maps. */
function makeBundle(dir) {
  let bytes = 0;
  for (let p = 0; p < 20; p++) {
    const ref = `pkg${String(p).padStart(2, '0')}.bench.devpkg.test`;
    const folder = join(dir, 'packages', ref);
    mkdirSync(folder, { recursive: true });
    const meta = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${ref}\nspec:\n  displayName: ${ref}\n`;
    writeFileSync(join(folder, 'metadata.yml'), meta);
    bytes += meta.length;
    // One flat map of 750 keys per Package (values examples, as big schemas carry): the yaml
    // library's duplicate-key check compares each key with every earlier one.
    const example = Array.from({ length: 750 }, (_, k) => `        key${String(k).padStart(4, '0')}: value-${k}\n`).join('');
    const v = `1.${p}.0`;
    const text = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${ref}.${v}\nspec:\n  refName: ${ref}\n  version: ${v}\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: registry.test/${ref}@sha256:${hex(p)}\n      template:\n      - ytt: {}\n      deploy:\n      - kapp: {}\n  valuesSchema:\n    openAPIv3:\n      type: object\n      example:\n${example}`;
    writeFileSync(join(folder, `${v}.yml`), text);
    bytes += text.length;
  }
  return bytes;
}

function recognition() {
  const cases = [];
  let tmp;
  if (CASES.has('bundle')) {
    tmp = mkdtempSync(join(tmpdir(), 'devpkg-bench-bundle-'));
    const bytes = makeBundle(tmp);
    console.log(`bundle: 20 packages, ${(bytes / 1024).toFixed(0)} KB at ${tmp}`);
    cases.push({ name: 'plan --all (bundle)', dir: tmp, target: 400, expect: 20 });
  }
  if (CASES.has('tce')) {
    if (flags.tce && existsSync(flags.tce)) cases.push({ name: 'plan --all (TCE tree)', dir: resolve(flags.tce), target: 1000 });
    else console.log('tce: skipped (give --tce DIR, a checkout of vmware-tanzu/community-edition)');
  }
  for (const c of cases) {
    const baseline = ['find', [c.dir, '-type', 'f', '-not', '-path', '*/.git/*']];
    const args = [CLI, 'plan', '--repo', c.dir, '--all', '--json'];
    const first = run(process.execPath, args, c.dir);
    const count = first.status === 0 || first.status === 1 ? JSON.parse(first.stdout).packages.length : undefined;
    console.log(`${c.name}: ${count ?? `exit ${first.status}: ${first.stderr.trim().split('\n').at(-1)}`} package versions; baseline find lists ${run(...baseline, c.dir).stdout.trim().split('\n').length} files`);
    if (count === undefined) continue;
    if (c.expect !== undefined && count !== c.expect) console.log(`${c.name}: WARNING: expected ${c.expect} package versions, got ${count}`);
    const walls = [];
    const ratios = [];
    for (let i = 0; i < Math.min(REPS, 5); i++) {
      const b = batch(baseline[0], baseline[1], c.dir, 5);
      // plan exits 1 when a package has a problem: still a measurement.
      const m = run(process.execPath, args, c.dir);
      if (m.status !== 0 && m.status !== 1) throw new Error(`${c.name} failed: ${m.stderr}`);
      walls.push(m.ms);
      ratios.push(m.ms / b.wall);
    }
    const w = median(walls);
    console.log(`${c.name.padEnd(24)} ${w.toFixed(0)} ms wall (median of ${walls.length}), ${median(ratios).toFixed(1)}x baseline find -type f; target < ${c.target} ms: ${w < c.target ? 'met' : 'NOT met'}`);
  }
  if (tmp && !flags.keep) rmSync(tmp, { recursive: true, force: true });
}

// ---- the base side: plan --base on a package repository, git processes counted ----

function baseCase() {
  const NP = Number(flags['base-packages']);
  const NF = Number(flags['base-files']);
  const ref = (p) => `pkg${String(p).padStart(2, '0')}.bench.devpkg.test`;
  const pkg = (p, v) => `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: ${ref(p)}.${v}
spec:
  refName: ${ref(p)}
  version: ${v}
  releaseNotes: "${ref(p)} ${v}"
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: registry.bench.test/${ref(p)}@sha256:${hex(p * 1000 + Number(v.split('.')[1]))}
      template:
      - ytt:
          paths: [config/]
      deploy:
      - kapp: {}
`;
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-bench-base-'));
  git(dir, ['init', '-q', '-b', 'main']);
  const parts = [];
  const push = (x) => parts.push(Buffer.from(x, 'utf8'));
  const data = (text) => {
    const b = Buffer.from(text, 'utf8');
    push(`data ${b.length}\n`);
    parts.push(b, Buffer.from('\n'));
  };
  const commit = (mark, msg, files) => {
    push(`commit refs/heads/main\nmark :${mark}\ncommitter Bench <bench@devpkg.invalid> ${1_600_000_000 + mark} +0000\n`);
    data(msg);
    if (mark > 1) push(`from :${mark - 1}\n`);
    for (const [path, text] of Object.entries(files)) {
      push(`M 100644 inline ${path}\n`);
      data(text);
    }
  };
  const base = {};
  for (let p = 0; p < NP; p++) {
    base[`packages/${ref(p)}/metadata.yml`] = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: ${ref(p)}\nspec:\n  displayName: pkg${p}\n`;
    for (let v = 0; v < NF - 1; v++) base[`packages/${ref(p)}/1.${v}.0.yml`] = pkg(p, `1.${v}.0`);
  }
  const head = {};
  for (let p = 0; p < NP; p++) head[`packages/${ref(p)}/2.0.0.yml`] = pkg(p, '2.0.0');
  commit(1, 'base', base);
  commit(2, 'head: a new version of every package', head);
  push('done\n');
  git(dir, ['fast-import', '--quiet', '--done'], Buffer.concat(parts));
  git(dir, ['checkout', '-q', '-f', 'main']);
  const baseSha = git(dir, ['rev-parse', 'main~1']);

  // The PATH wrapper: every git the run starts, logged, then the real one.
  const bin = mkdtempSync(join(tmpdir(), 'devpkg-bench-gitlog-'));
  const log = join(bin, 'git.log');
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  const args = [CLI, 'plan', '--repo', dir, '--base', baseSha, '--json'];
  const once = () => {
    rmSync(log, { force: true });
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd: dir, env, encoding: 'utf8', maxBuffer: 1 << 28 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
    return { ms, r, calls };
  };
  const first = once();
  let planned;
  try {
    planned = JSON.parse(first.r.stdout).packages.length;
  } catch {
    console.log(`\nplan --base: failed (exit ${first.r.status}): ${(first.r.stderr || first.r.stdout).trim().split('\n').slice(-2).join(' / ')}`);
    return;
  }
  const kinds = {};
  for (const c of first.calls) {
    const words = c.split(' ').filter((w) => !w.startsWith('-') || w === '--batch');
    const k = words[0] === 'cat-file' ? `cat-file ${c.includes('--batch') ? '--batch' : words[1]}` : words[0];
    kinds[k] = (kinds[k] ?? 0) + 1;
  }
  const reps = first.ms > 5000 ? 1 : Number(flags['base-reps']);
  const times = [first.ms];
  for (let i = 1; i < reps; i++) times.push(once().ms);
  console.log('');
  console.log(`plan --base on a package repository of ${NP} packages x ${NF} files (${NP * NF} files at the base), ${planned} packages planned`);
  console.log(`git processes: ${first.calls.length} (${Object.entries(kinds).map(([k, n]) => `${k} ${n}`).join(', ')}); target: one cat-file --batch, none per file: ${(kinds['cat-file --batch'] ?? 0) <= 1 && !kinds['cat-file blob'] && !kinds.show ? 'met' : 'NOT met'}`);
  console.log(`wall: median ${median(times).toFixed(0)} ms of ${times.length} run(s)`);
  if (!flags.keep) rmSync(dir, { recursive: true, force: true });
  rmSync(bin, { recursive: true, force: true });
}

// `devpkg plan --out`: the printed commands run as printed. The plan runs on copies of the three
// example repositories from a folder that is not the repository; then every command line it
// printed is run by bash from that same folder, with kubectl, imgpkg, tanzu and devpkg replaced
// by recorders that keep their argv and working folder (cp runs for real, into a HOME of the
// test's own). Each file a command names must be there, seen from where the command ran.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import { runCli } from '../../src/cli.js';
import { PLAN_MARKER } from '../../src/pipeline/plan-out.js';

const base = mkdtempSync(join(tmpdir(), 'devpkg-plan-out-'));
const bin = join(base, 'bin');
const home = join(base, 'home');
const record = join(base, 'record.jsonl');
const clusterConfig = join(base, 'cluster-config.yaml');
const CUSTOMIZATIONS = '.config/tanzu/tkg/providers/ytt/04_user_customizations';

beforeAll(() => {
  for (const ex of ['tce-packages', 'kctrl', 'repository']) cpSync(resolve('examples', ex), join(base, 'repos', ex), { recursive: true });
  mkdirSync(bin);
  // Recorders, not fakes of what the tools do: the test asks only what they were given, and where.
  for (const tool of ['kubectl', 'imgpkg', 'tanzu', 'devpkg']) {
    const f = join(bin, tool);
    writeFileSync(
      f,
      `#!/usr/bin/env node\nrequire('fs').appendFileSync(process.env.RECORD, JSON.stringify({ tool: ${JSON.stringify(tool)}, cwd: process.cwd(), argv: process.argv.slice(2) }) + '\\n');\n`,
    );
    chmodSync(f, 0o755);
  }
  mkdirSync(join(home, CUSTOMIZATIONS), { recursive: true });
  writeFileSync(clusterConfig, 'CLUSTER_NAME: dev\n');
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function cli(argv: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: process.env, cwd });
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** The command lines of a text plan (comments are not commands). */
function commandLines(text: string): string[] {
  const lines: string[] = [];
  let inCommands = false;
  for (const line of text.split('\n')) {
    if (line === '  commands:') inCommands = true;
    else if (!line.startsWith('    ')) inCommands = false;
    else if (inCommands && !line.trim().startsWith('#')) lines.push(line.trim());
  }
  return lines;
}

interface Recorded {
  tool: string;
  cwd: string;
  argv: string[];
}

/** Runs each line with bash from cwd; returns what the recorders were given. */
function runLines(lines: string[], cwd: string): Recorded[] {
  rmSync(record, { force: true });
  for (const line of lines) {
    execFileSync('bash', ['-euc', line], { cwd, env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, HOME: home, RECORD: record, CLUSTER_CONFIG: clusterConfig }, stdio: 'pipe' });
  }
  return existsSync(record) ? readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Recorded) : [];
}

const flag = (r: Recorded, name: string) => {
  const i = r.argv.indexOf(name);
  expect(i).toBeGreaterThanOrEqual(0);
  return r.argv[i + 1]!;
};
const at = (r: Recorded, p: string) => (isAbsolute(p) ? p : join(r.cwd, p));

interface PlanJson {
  out: string;
  packages: Array<{ name: string; version: string; devPackageName: string; commands: string[]; files: Array<{ path: string; what: string }>; overlay: string }>;
}

describe.each([
  ['tce-packages', 2],
  ['kctrl', 1],
  ['repository', 2],
])('plan --out on a copy of examples/%s', (example, count) => {
  // From a folder beside the repository (its paths are absolute there), and from the folder above
  // it (relative paths): the lines must work from where the plan was run either way.
  test.each([
    ['a folder beside the repository', 'work'],
    ['the folder holding it', '.'],
  ])('from %s, every printed command finds its files', async (_what, where) => {
    const cwd = join(base, where, where === '.' ? '' : example);
    mkdirSync(cwd, { recursive: true });
    const repo = join(base, 'repos', example);
    const outName = `plan-${example}`;
    rmSync(join(cwd, outName), { recursive: true, force: true });
    const r = await cli(['plan', '--repo', repo.startsWith(cwd) ? repo.slice(cwd.length + 1) : repo, '--all', '--out', outName], cwd);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(join(cwd, outName, PLAN_MARKER), 'utf8')) as PlanJson;
    expect(json.out).toBe(join(cwd, outName));
    expect(json.packages).toHaveLength(count);
    // What --json names was written, and the text prints the same commands.
    for (const p of json.packages) {
      expect(p.files.length).toBeGreaterThan(0);
      for (const f of p.files) expect(existsSync(f.path)).toBe(true);
    }
    const lines = commandLines(r.stdout);
    expect(lines).toEqual(json.packages.flatMap((p) => p.commands.filter((c) => !c.startsWith('#'))));
    expect(lines.length).toBeGreaterThan(0);

    const recorded = runLines(lines, cwd);
    for (const rec of recorded) expect(rec.cwd).toBe(cwd);
    const applied = recorded.filter((x) => x.tool === 'kubectl');
    expect(applied).toHaveLength(count);
    for (const [i, k] of applied.entries()) {
      const doc = parse(readFileSync(at(k, flag(k, '-f')), 'utf8'));
      expect(doc.kind).toBe('Package');
      expect(doc.metadata.name).toBe(json.packages[i]!.devPackageName);
    }
    for (const push of recorded.filter((x) => x.tool === 'imgpkg')) {
      expect(statSync(at(push, flag(push, '-f'))).isDirectory()).toBe(true);
      expect(existsSync(dirname(at(push, flag(push, '--lock-output'))))).toBe(true);
    }
    for (const d of recorded.filter((x) => x.tool === 'devpkg')) {
      const [cmd] = d.argv;
      if (cmd === 'dev' || cmd === 'bootstrap') expect(existsSync(join(at(d, flag(d, '--package')), 'package.yaml'))).toBe(true);
      else {
        expect(cmd).toBe('kind');
        const again = await cli(['plan', ...d.argv.slice(1)], d.cwd);
        expect(again.code).toBe(0); // the kind line's repository and packages select this package
      }
    }
    for (const t of recorded.filter((x) => x.tool === 'tanzu')) expect(flag(t, '--file')).toBe(clusterConfig);

    const bootstrappable = example === 'tce-packages';
    // Bootstrap lines only where bootstrap can take the package; the others get kind as their next step.
    expect(recorded.some((x) => x.tool === 'tanzu')).toBe(bootstrappable);
    expect(recorded.some((x) => x.tool === 'devpkg' && x.argv[0] === 'kind')).toBe(!bootstrappable);
    if (bootstrappable) {
      // cp ran for real: the overlay is in the providers folder, as written in the plan.
      for (const p of json.packages) {
        const overlay = p.files.find((f) => f.what === 'overlay')!;
        expect(readFileSync(join(home, CUSTOMIZATIONS, overlay.path.split('/').at(-1)!), 'utf8')).toBe(p.overlay);
      }
      rmSync(join(home, CUSTOMIZATIONS), { recursive: true });
      mkdirSync(join(home, CUSTOMIZATIONS));
    }
  });
});

describe('plan --out refuses what it cannot write, and leaves nothing behind', () => {
  const repo = () => join(base, 'repos', 'tce-packages');
  const around = (dir: string) => readdirSync(dirname(dir)).sort();

  test('a folder that is not empty and no earlier plan: exit 2, untouched', async () => {
    const dir = join(base, 'busy');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mine.txt'), 'keep\n');
    const before = around(dir);
    const r = await cli(['plan', '--repo', repo(), '--all', '--out', dir], base);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out: .*busy is not empty and is not an earlier plan's folder \(no devpkg-plan\.json in it\)/);
    expect(readdirSync(dir)).toEqual(['mine.txt']);
    expect(around(dir)).toEqual(before);
  });

  test("an earlier plan's folder is replaced whole", async () => {
    const dir = join(base, 'again');
    expect((await cli(['plan', '--repo', repo(), '--all', '--out', dir], base)).code).toBe(0);
    writeFileSync(join(dir, 'antrea/1.5.3/bundle.lock.yml'), 'from the earlier push\n');
    const r = await cli(['plan', '--repo', repo(), '--packages', 'calico/3.22.1', '--out', dir], base);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['calico', PLAN_MARKER]);
    expect(readdirSync(base).filter((f) => f.startsWith('.again'))).toEqual([]);
  });

  test('a missing parent folder, --build without --out, the repository itself: exit 2', async () => {
    for (const [argv, msg] of [
      [['--out', join(base, 'no/such/dir')], /--out: .*no\/such does not exist; create it first/],
      [['--build'], /--build needs --out DIR/],
      [['--out', repo()], /--out: .* holds the repository/],
    ] as const) {
      const r = await cli(['plan', '--repo', repo(), '--all', ...argv], base);
      expect(r.stderr).toMatch(msg);
      expect(r.code).toBe(2);
    }
  });

  test('a build that fails half-way: the error names the file and line, nothing is left', async () => {
    const repo = join(base, 'broken-kctrl');
    cpSync(resolve('examples', 'kctrl'), repo, { recursive: true });
    const buildFile = join(repo, 'simple-app', 'package-build.yml');
    writeFileSync(buildFile, readFileSync(buildFile, 'utf8').replace('includePaths:\n        - config\n', 'includePaths:\n        - config\n        - missing\n'));
    // ytt and kbld are looked for first; the build stops at the missing includePaths entry before either runs.
    const tools = join(base, 'never-run');
    mkdirSync(tools, { recursive: true });
    for (const t of ['ytt', 'kbld']) {
      writeFileSync(join(tools, t), '#!/bin/sh\nexit 99\n');
      chmodSync(join(tools, t), 0o755);
    }
    const dir = join(base, 'half');
    const before = readdirSync(base).sort();
    const err: string[] = [];
    const code = await runCli(['plan', '--repo', repo, '--all', '--out', dir, '--build'], {
      stdout: (t) => err.push(t),
      stderr: (t) => err.push(t),
      env: { ...process.env, PATH: `${tools}:${process.env.PATH}` },
      cwd: base,
    });
    expect(code).toBe(1);
    expect(err.join('')).toMatch(/simple-app\/package-build\.yml:\d+: .*includePaths entry missing does not exist/);
    expect(readdirSync(base).sort()).toEqual(before);
  });

  test('--build without ytt and kbld on PATH: names both, writes nothing', async () => {
    const dir = join(base, 'built');
    const before = readdirSync(base).sort();
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['plan', '--repo', join(base, 'repos', 'kctrl'), '--all', '--out', dir, '--build'], {
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      env: { ...process.env, PATH: bin },
      cwd: base,
    });
    expect(code).toBe(1);
    expect(err.join('')).toMatch(/--build needs ytt and kbld on PATH to build the bundle of simple-app\/package-build\.yml/);
    expect(out.join('')).toBe('');
    expect(readdirSync(base).sort()).toEqual(before);
  });
});

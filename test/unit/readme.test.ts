// Keeps the README true: it starts with the two set-up commands; its inputs and outputs tables
// say what action.yml says, row for row; every CLI command is in it and has its section in
// docs/cli.md; and every flag the README and docs/cli.md show in a command line is a flag that
// command's --help knows.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { COMMANDS } from '../../src/cli.js';
import { defaultOf } from '../../src/config/schema.js';
import { tryKindModeCommands } from '../support/readme.js';

const readme = readFileSync('README.md', 'utf8');
const cliDoc = readFileSync('docs/cli.md', 'utf8');
type Entry = { description: string; default?: string };
const action = parse(readFileSync('action.yml', 'utf8')) as { inputs: Record<string, Entry>; outputs: Record<string, Entry> };

/** The rows of the Markdown table whose header row is `header`, keyed by their first cell's `name`. */
function tableRows(md: string, header: string): Map<string, string> {
  const lines = md.split('\n');
  const start = lines.indexOf(header);
  if (start < 0) throw new Error(`no table with header ${header}`);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const name = /^\| `([^`]+)` \|/.exec(line)?.[1];
    if (name) rows.set(name, line);
  }
  return rows;
}

const cell = (text: string) => text.trim().replace(/\|/g, '\\|');

const setUpCommands = () =>
  (/```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.replace(/\s+#.*$/, ''));

test('the README opens with the two set-up commands', () => {
  expect(setUpCommands()).toEqual(['node dist/cli.js plan --repo examples/tce-packages --all', 'npm ci && npm test']);
  expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
});

test('before any command, one sentence says what devpkg is and who it is for', () => {
  const intro = readme.slice(readme.indexOf('\n') + 1, readme.indexOf('```')).trim();
  expect(intro.split(/(?<=[.!?])\s+/)).toHaveLength(1);
  expect(intro.replace(/\s+/g, ' ')).toMatch(/^devpkg is a GitHub Action and command-line tool for [^.]+ that [^.]+\.$/);
});

describe('the README modes table', () => {
  const rows = tableRows(readme, '| mode | command | cluster | what it does |');
  test('names each mode of action.yml once, with its command (or why it has none)', () => {
    const modes = /^([a-z]+(?: \| [a-z]+)*)\./.exec(action.inputs.mode!.description)![1]!.split(' | ');
    expect([...rows.keys()]).toEqual(modes);
    for (const [mode, row] of rows) {
      const command = row.split(' | ')[1]!;
      if (mode === 'report') expect(command).toMatch(/^none: /);
      else expect(Object.keys(COMMANDS)).toContain(/^`devpkg (\w+)`/.exec(command)?.[1]);
    }
  });
});

test('the first set-up command runs the committed bundle with no npm ci: in a folder with only dist/ and the examples', () => {
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-readme-'));
  try {
    for (const p of ['dist', 'examples/tce-packages']) cpSync(p, join(dir, p), { recursive: true });
    const [node, ...args] = setUpCommands()[0]!.split(' ');
    expect(node).toBe('node');
    const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/antrea[\s\S]*calico/);
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('the README\'s try kind mode', () => {
  const commands = tryKindModeCommands();
  test('comes right after the two set-up commands: the README\'s second shell block', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!.split('\n').filter((l) => l.trim()));
    expect(blocks[1]).toEqual(commands);
    expect(readme.indexOf('Try kind mode')).toBeLessThan(readme.indexOf('\n## '));
  });
  test('runs devpkg kind on the example repository with flags devpkg kind knows; its packages plan', async () => {
    expect(commands).toHaveLength(1);
    const m = /^node dist\/cli\.js kind --repo (\S+) --packages (\S+) /.exec(commands[0]!);
    expect(m).not.toBeNull();
    let help = '';
    await (await COMMANDS.kind.load()).run(['--help'], { stdout: (t) => (help += t), stderr: () => undefined, env: {}, cwd: process.cwd() });
    for (const flag of commands[0]!.match(/--[a-z][a-z0-9-]*/g) ?? []) expect(help).toMatch(new RegExp(`${flag}(?![a-z0-9-])`));
    let out = '';
    const code = await (await COMMANDS.plan.load()).run(['--repo', m![1]!, '--packages', m![2]!, '--json'], { stdout: (t) => (out += t), stderr: () => undefined, env: {}, cwd: process.cwd() });
    expect(code).toBe(0);
    expect((JSON.parse(out) as { packages: Array<{ verdict?: string; devVersion: string }> }).packages.map((p) => p.devVersion)).toEqual([expect.stringMatching(/^1\.0\.1-dev\./)]);
  });
});

describe('the README inputs table', () => {
  const rows = tableRows(readme, '| input | default | description |');
  test.each(Object.entries(action.inputs))('input %s says what action.yml says, with the default devpkg applies', (name, input) => {
    // Defaults live in src/config/schema.ts (action.yml's would shadow devpkg.yaml); mode's and github-token's stay there.
    const dflt = input.default || defaultOf(name);
    const def = dflt === '' ? '' : `\`${dflt}\``;
    expect(rows.get(name)).toBe(`| \`${name}\` | ${def} | ${cell(input.description)} |`);
  });
  test('has no input that action.yml lacks', () => {
    expect([...rows.keys()]).toEqual(Object.keys(action.inputs));
  });
});

describe('the README outputs table', () => {
  const rows = tableRows(readme, '| output | description |');
  test.each(Object.entries(action.outputs))('output %s says what action.yml says', (name, output) => {
    expect(rows.get(name)).toBe(`| \`${name}\` | ${cell(output.description)} |`);
  });
  test('has no output that action.yml lacks', () => {
    expect([...rows.keys()]).toEqual(Object.keys(action.outputs));
  });
});

test.each(Object.keys(COMMANDS))('command %s is in the README and has a section in docs/cli.md', (name) => {
  expect(readme).toContain(`devpkg ${name} `);
  expect(cliDoc).toContain(`\n## \`devpkg ${name}\`\n`);
});

/** Command lines shown in the README's CLI table and in docs/cli.md's code blocks: [command, text]. */
function shownCommandLines(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const m of readme.matchAll(/^\| `devpkg (\w+) ([^`]*)` \|/gm)) out.push([m[1], m[2]]);
  let inCode = false;
  let current: [string, string] | undefined;
  for (const line of cliDoc.split('\n')) {
    if (line.startsWith('```')) {
      inCode = !inCode;
      current = undefined;
      continue;
    }
    if (!inCode) continue;
    const m = /^(?:\$ )?devpkg (\w+)(.*)$/.exec(line);
    if (m) out.push((current = [m[1], m[2]]));
    else if (current && /^\s/.test(line)) current[1] += ` ${line}`;
    else current = undefined;
  }
  return out;
}

test('every flag shown in a command line is one the command knows', async () => {
  const shown = shownCommandLines();
  expect(new Set(shown.map(([c]) => c))).toEqual(new Set(Object.keys(COMMANDS)));
  const unknown: string[] = [];
  for (const name of Object.keys(COMMANDS)) {
    let help = '';
    const mod = await COMMANDS[name].load();
    const code = await mod.run(['--help'], { stdout: (t) => (help += t), stderr: () => undefined, env: {}, cwd: process.cwd() });
    expect(code).toBe(0);
    for (const [command, text] of shown.filter(([c]) => c === name)) {
      for (const flag of text.replace(/#.*$/gm, '').match(/--[a-z][a-z0-9-]*/g) ?? []) {
        if (!new RegExp(`${flag}(?![a-z0-9-])`).test(help)) unknown.push(`devpkg ${command} ${flag}`);
      }
    }
  }
  expect(unknown).toEqual([]);
});

test('.ci/run calls the same test command', () => {
  // Run bare, or through .ci/run's `phase NAME CMD...` timer.
  expect(readFileSync('.ci/run', 'utf8')).toMatch(/^(phase "[^"]+" )?npm test$/m);
});

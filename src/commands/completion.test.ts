import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTINS, COMMANDS, runCli } from '../cli.js';
import { bashScript, describe as describeFlag, fishScript, zshScript, type CompletionSpec } from './completion.js';
import type { CliIO, Options } from './io.js';

async function devpkg(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {}, cwd: process.cwd() };
  const code = await runCli(argv, io);
  return { code, out, err };
}

/** Each command's flags as its own table holds them (what parseCommand parses), minus the ones its help does not name. */
async function flagsOf(name: string): Promise<string[]> {
  let help = '';
  let table: Options = {};
  await (await COMMANDS[name]!.load()).run(['--help'], { stdout: (t) => (help += t), stderr: () => undefined, env: {}, cwd: process.cwd(), flagTable: (o) => (table = o) });
  return [...Object.keys(table).filter((f) => describeFlag(help, f) !== undefined), 'help'];
}

const scripts: Record<string, string> = {};
const work = mkdtempSync(join(tmpdir(), 'devpkg-completion-'));
beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await devpkg(['completion', shell]);
    expect(r).toMatchObject({ code: 0, err: '' });
    scripts[shell] = r.out;
    writeFileSync(join(work, `devpkg.${shell}`), r.out);
  }
  // Files for the file-name completion of a flag's value.
  writeFileSync(join(work, 'kind-a.yaml'), '');
  writeFileSync(join(work, 'kind-b.yaml'), '');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.each(Object.keys(COMMANDS))('the completion scripts complete devpkg %s', (name) => {
  test('and every flag of its table', async () => {
    const flags = await flagsOf(name);
    const bashLine = new RegExp(`^ {4}${name}\\) flags='([^']*)'`, 'm').exec(scripts.bash!)?.[1]?.split(' ');
    expect(bashLine).toEqual(expect.arrayContaining(flags.map((f) => `--${f}`)));
    expect(bashLine).toHaveLength(flags.length + 1); // and -h
    const zshCase = new RegExp(`^ {4}\\(${name}\\) ([\\s\\S]*?);;`, 'm').exec(scripts.zsh!)?.[1] ?? '';
    for (const f of flags) expect(zshCase).toMatch(new RegExp(`'--${f}=?\\[`));
    const fish = scripts.fish!.split('\n').filter((l) => l.includes(`'__fish_seen_subcommand_from ${name}'`));
    for (const f of flags) expect(fish.some((l) => l.includes(` -l ${f} `))).toBe(true);
  });
});

test('push does not offer --registry-password, which it refuses', () => {
  for (const script of Object.values(scripts)) expect(script).not.toContain('registry-password');
});

test('every command and builtin is offered first', () => {
  for (const name of [...Object.keys(COMMANDS), ...Object.keys(BUILTINS)]) {
    expect(scripts.bash).toMatch(new RegExp(`compgen -W '[^']*\\b${name}\\b`));
    expect(scripts.zsh).toContain(`'${name}:`);
    expect(scripts.fish).toContain(`-n __fish_use_subcommand -a ${name} `);
  }
});

/** Sources the bash script, sets COMP_WORDS to the line's words and calls the function: COMPREPLY. */
function bashComplete(line: string): string[] {
  const words = line.split(' ');
  const script = `source ./devpkg.bash
COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_devpkg
printf '%s\\n' "\${COMPREPLY[@]}"
complete -p devpkg >&2`;
  const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], { cwd: work, encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stderr).toBe('complete -o default -F _devpkg devpkg\n');
  return r.stdout.split('\n').filter((l) => l !== '');
}

// [the line, the cursor at its end; what is offered]. An empty answer leaves it to bash's
// file-name completion (complete -o default): the value of a flag.
const CASES: Array<[string, string[]]> = [
  ['devpkg pl', ['plan']],
  ['devpkg de', ['detect', 'derive', 'dev']],
  ['devpkg com', ['completion']],
  ['devpkg -', ['-h', '--help', '-V', '--version']],
  ['devpkg plan --re', ['--repo', '--released-version', '--registry', '--ref-name']],
  ['devpkg kind --no', ['--no-install']],
  ['devpkg push --registry-', ['--registry-username']],
  ['devpkg bootstrap --tkg-custom-image-repository-s', ['--tkg-custom-image-repository-skip-tls-verify']],
  ['devpkg plan --repo ', []],
  ['devpkg plan --repo = ', []],
  ['devpkg plan --repo =', []],
  ['devpkg completion ', ['bash', 'zsh', 'fish']],
  ['devpkg completion z', ['zsh']],
  ['devpkg help de', ['detect', 'derive', 'dev']],
  ['devpkg nosuch --', []],
];

describe('bash really completes', () => {
  test.each(CASES)('%j', (line, expected) => {
    expect(bashComplete(line)).toEqual(expected);
  });
  test('a flag with no value yet offers the flags', () => {
    expect(bashComplete('devpkg select ')).toEqual(['--versions', '--constraints', '--prerelease-identifiers', '--prereleases', '--explain', '-h', '--help']);
  });
});

const has = (shell: string) => spawnSync(shell, ['--version']).status === 0;

// zsh and fish are not on every machine; where they are, they run the scripts for real.
(has('fish') ? describe : describe.skip)('fish really completes', () => {
  test.each([...CASES.filter(([line]) => !line.endsWith(' ') && !line.includes('=') && !line.startsWith('devpkg nosuch')),
    ['devpkg kind --kind-config kind-', ['kind-a.yaml', 'kind-b.yaml']] as [string, string[]],
    ['devpkg kind --kind-config=kind-', ['--kind-config=kind-a.yaml', '--kind-config=kind-b.yaml']] as [string, string[]],
  ])(
    '%j',
    (line, expected) => {
      const r = spawnSync('fish', ['--no-config', '-c', `source ./devpkg.fish; complete -C ${JSON.stringify(line)}`], { cwd: work, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort()).toEqual([...expected].sort());
    },
  );
});

/** Completes a line in an interactive zsh on a pseudo-terminal (compinit, the script sourced): what compadd was given. */
const ZSH_CAPTURE = `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT=''; autoload -U compinit; compinit -u -D; source ./devpkg.zsh"
zpty -w z 'compadd() { if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then builtin compadd "$@"; return $?; fi; local -a hits; builtin compadd -A hits "$@"; local h; for h in $hits; do print -r -- "HI""T:$h"; done; builtin compadd "$@"; }'
zpty -w z 'bindkey "^I" complete-word; _done() { print -r -- "DO""NE"; }; comppostfuncs=(_done)'
zpty -n -w z "$1"$'\\t'
local line
while zpty -r z line; do
  [[ $line == *DONE* ]] && break
  [[ $line == *HIT:* ]] && print -r -- "\${\${line##*HIT:}%$'\\r'*}"
done
zpty -d z
`;

(has('zsh') ? describe : describe.skip)('zsh really completes', () => {
  test.each([...CASES.filter(([line]) => !line.startsWith('devpkg nosuch') && !line.startsWith('devpkg plan --repo ')),
    ['devpkg kind --kind-config kind-', ['kind-a.yaml', 'kind-b.yaml']] as [string, string[]],
    ['devpkg kind --kind-config=kind-', ['kind-a.yaml', 'kind-b.yaml']] as [string, string[]],
  ])(
    '%j',
    (line, expected) => {
      writeFileSync(join(work, 'capture.zsh'), ZSH_CAPTURE);
      const r = spawnSync('zsh', ['-f', 'capture.zsh', line], { cwd: work, encoding: 'utf8', timeout: 20_000 });
      expect(r.status).toBe(0);
      expect(r.stdout.split('\n').filter(Boolean).sort()).toEqual([...expected].sort());
    },
  );
});

describe('the scripts quote what they are given', () => {
  const spec: CompletionSpec = {
    commands: [{ name: 'plan', summary: "it's [x]", flags: [{ name: 'repo', value: true, description: "a 'dir' [x] \\ y" }], args: [] }],
    flags: [{ name: 'help', short: 'h', value: false, description: 'help' }],
  };
  test('zsh', () => {
    const script = zshScript(spec);
    expect(script).toContain(`'plan:it'\\''s [x]'`);
    expect(script).toContain(`'--repo=[a '\\''dir'\\'' \\[x\\] \\\\ y]:repo:_files'`);
    expect(spawnSync('zsh', ['-n'], { input: script }).status).toBe(has('zsh') ? 0 : null);
  });
  test('fish', () => {
    expect(fishScript(spec)).toContain(`-l repo -r -F -d 'a \\'dir\\' [x] \\\\ y'`);
  });
  test('a name that is not plain is refused, not quoted', () => {
    const bad = { ...spec, commands: [{ ...spec.commands[0]!, name: 'plan;rm' }] };
    expect(() => bashScript(bad)).toThrow('completion: "plan;rm" of devpkg plan;rm is not a plain name');
  });
});

test.each<[string, string, string | undefined]>([
  ['  --repo DIR            the packages repository (default: .)', 'repo', 'the packages repository (default: .)'],
  ['  --all                 every version folder', 'all', 'every version folder'],
  ['  -h, --help            show this help', 'help', 'show this help'],
  ['  --derive-from repo|cluster derive from the package.yaml', 'derive-from', 'repo|cluster derive from the package.yaml'],
  ['  --tkg-custom-image-repository REPO\n                           TKG_CUSTOM_IMAGE_REPOSITORY: the mirror', 'tkg-custom-image-repository', 'TKG_CUSTOM_IMAGE_REPOSITORY: the mirror'],
  ['  --tkg-custom-image-repository-skip-tls-verify\n                           TLS off', 'tkg-custom-image-repository-skip-tls-verify', 'TLS off'],
  ['  --repo-x DIR   other', 'repo', undefined],
  ['Usage: devpkg plan --repo DIR', 'repo', undefined],
])('describe(%j, %s)', (help, flag, expected) => {
  expect(describeFlag(help, flag)).toBe(expected);
});

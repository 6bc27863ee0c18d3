import { describe, expect, test } from '@jest/globals';
import { BUILTINS, COMMANDS, runCli, usage } from './cli.js';
import { describe as describeFlag } from './commands/completion.js';
import type { CliIO, Options } from './commands/io.js';

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(argv: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {}, cwd: process.cwd() };
  const code = await runCli(argv, io);
  return { code, out, err };
}

/** A command's help as `devpkg <command> --help` prints it, and the flag table it parses with. */
async function commandHelp(name: string): Promise<{ help: string; table: Options }> {
  let help = '';
  let table: Options = {};
  await (await COMMANDS[name]!.load()).run(['--help'], { stdout: (t) => (help += t), stderr: () => undefined, env: {}, cwd: process.cwd(), flagTable: (o) => (table = o) });
  return { help, table };
}

const planHelp = async () => (await commandHelp('plan')).help;

describe('the help, on stdout with exit 0', () => {
  test.each([[['--help']], [['-h']], [['help']], [['help', 'help']], [['help', 'version']]])('devpkg %j prints the usage', async (argv) => {
    expect(await cli(argv)).toEqual({ code: 0, out: `${usage()}\n`, err: '' });
  });

  test.each([
    [['help', 'plan']],
    [['--help', 'plan']],
    [['-h', 'plan']],
    [['plan', 'help']],
    [['plan', '--help']],
    [['plan', '-h']],
    // --help wins over a wrong flag, a missing value and a stray word.
    [['plan', '--rpo', 'x', '--help']],
    [['plan', '--repo', '--help']],
    [['plan', 'stray', '-h']],
  ])("devpkg %j prints plan's help", async (argv) => {
    expect(await cli(argv)).toEqual({ code: 0, out: await planHelp(), err: '' });
  });

  test('the usage lists every command, and completion, help and version', () => {
    for (const name of [...Object.keys(COMMANDS), ...Object.keys(BUILTINS)]) expect(usage()).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
    expect(Object.keys(COMMANDS)).toContain('completion');
    expect(Object.keys(BUILTINS)).toEqual(expect.arrayContaining(['help', 'version']));
  });
});

describe('bad usage, on stderr with exit 2', () => {
  test('no arguments: the usage, on stderr', async () => {
    expect(await cli([])).toEqual({ code: 2, out: '', err: `${usage()}\n` });
  });

  // One line each: the thing, and the fix.
  test.each<[string[], string]>([
    [['plna'], 'devpkg: unknown command "plna"; did you mean plan?'],
    [['detcet', '--all'], 'devpkg: unknown command "detcet"; did you mean detect?'],
    [['completoin', 'bash'], 'devpkg: unknown command "completoin"; did you mean completion?'],
    [['hlep'], 'devpkg: unknown command "hlep"; did you mean help?'],
    [['help', 'plna'], 'devpkg: unknown command "plna"; did you mean plan?'],
    [['help', 'plan', 'detect'], 'devpkg help: give one command, e.g. devpkg help plan'],
    [['--verison'], 'devpkg: unknown flag --verison; did you mean --version?'],
    [['--repo', '.', 'plan'], 'devpkg: unknown flag --repo; flags go after the command: devpkg <command> --repo (devpkg --help lists the commands)'],
    [['plan', '--rpo', 'x'], 'devpkg plan: unknown flag --rpo; did you mean --repo?'],
    [['plan', '--rpo=x', '--all'], 'devpkg plan: unknown flag --rpo; did you mean --repo?'],
    [['detect', '--all', '--jsno'], 'devpkg detect: unknown flag --jsno; did you mean --json?'],
    [['dev', '--kubconfig', 'k'], 'devpkg dev: unknown flag --kubconfig; did you mean --kubeconfig?'],
    [['push', '-bundle', 'b'], 'devpkg push: unknown flag -bundle; did you mean --bundle?'],
    [['select', '--colour'], 'devpkg select: unknown flag --colour; devpkg select --help lists the flags'],
    [['completion', 'bsh'], 'devpkg completion: unknown shell "bsh"; did you mean bash?'],
    [['completion', 'tcsh'], 'devpkg completion: unknown shell "tcsh"; give bash, zsh or fish'],
    [['completion'], 'devpkg completion: give the shell: devpkg completion bash, zsh or fish'],
    [['completion', '--shell', 'bash'], 'devpkg completion: unknown flag --shell; devpkg completion --help lists the flags'],
  ])('devpkg %j', async (argv, line) => {
    expect(await cli(argv)).toEqual({ code: 2, out: '', err: `${line}\n` });
  });

  test.each([[['deploy']], [['constructor']], [['help', 'toString']]])('an unknown command nothing is close to: the line, then the usage (%j)', async (argv) => {
    const name = argv[argv.length - 1];
    expect(await cli(argv)).toEqual({ code: 2, out: '', err: `devpkg: unknown command "${name}"\n\n${usage()}\n` });
  });
});

describe.each(Object.keys(COMMANDS))('devpkg %s', (name) => {
  test('its help lists -h, --help, and every flag it takes', async () => {
    const { help, table } = await commandHelp(name);
    expect(help).toMatch(/^Usage: devpkg /);
    expect(help).toMatch(/^ {2}-h, --help +show this help$/m);
    // --registry-password is known only to be refused, with the reason (push).
    const undocumented = Object.keys(table).filter((flag) => describeFlag(help, flag) === undefined);
    expect(undocumented).toEqual(name === 'push' ? ['registry-password'] : []);
  });

  test.each([[['-h']], [['--help']], [['help']]])('%j and devpkg help <command> print the same help, exit 0', async (argv) => {
    const { help } = await commandHelp(name);
    expect(await cli([name, ...argv])).toEqual({ code: 0, out: help, err: '' });
    expect(await cli(['help', name])).toEqual({ code: 0, out: help, err: '' });
  });
});

test('--packages takes what the action\'s packages input takes: commas or newlines, # comment lines', async () => {
  const r = await cli(['plan', '--repo', 'examples/tce-packages', '--packages', 'antrea/1.5.3\n# not calico\n', '--json']);
  expect(r.code).toBe(0);
  expect((JSON.parse(r.out) as { packages: Array<{ name: string }> }).packages.map((p) => p.name)).toEqual(['antrea']);
  const both = await cli(['plan', '--repo', 'examples/tce-packages', '--packages', 'antrea/1.5.3,\ncalico/3.22.1', '--json']);
  expect((JSON.parse(both.out) as { packages: Array<{ name: string }> }).packages.map((p) => p.name)).toEqual(['antrea', 'calico']);
});

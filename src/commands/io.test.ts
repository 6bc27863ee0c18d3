import { describe, expect, test } from '@jest/globals';
import { UsageError } from '../errors.js';
import { parseCommand, wantsHelp, type CliIO, type Options } from './io.js';
import { booleans, strings } from './options.js';

function io(): CliIO & { out: string; table?: Options } {
  const r: CliIO & { out: string; table?: Options } = { out: '', stdout: (t) => (r.out += t), stderr: () => undefined, env: {}, cwd: '/', flagTable: (o) => (r.table = o) };
  return r;
}

const USAGE = 'Usage: devpkg x --repo DIR\n';
const table = { ...strings('timeout', 'repo', 'ref-name', 'released-version'), ...booleans('json') };

function usageError(argv: string[]): Error | undefined {
  try {
    parseCommand(argv, io(), USAGE, table);
  } catch (e) {
    return e as Error;
  }
  return undefined;
}

describe('parseCommand', () => {
  test('returns the values', () => {
    const t = io();
    expect(parseCommand(['--timeout', '5m', '--json'], t, USAGE, table)).toEqual({ timeout: '5m', json: true });
    expect(t.out).toBe('');
    expect(t.table).toBeUndefined();
  });

  test.each<[string[]]>([
    [['--help']],
    [['-h']],
    [['help']],
    [['--timeout', '5m', '-h']],
    // The help wins over whatever else is wrong on the line.
    [['--rpo', 'x', '--help']],
    [['--timeout', '--help']],
    [['stray', '-h']],
  ])('%j prints the usage, hands over the flag table and returns undefined', (argv) => {
    const t = io();
    expect(parseCommand(argv, t, USAGE, table)).toBeUndefined();
    expect(t.out).toBe(USAGE);
    expect(t.table).toBe(table);
  });

  test.each<[string[], Record<string, unknown>]>([
    // `help` is the help only as the one argument: as a flag's value it is that value.
    [['--repo', 'help'], { repo: 'help' }],
    [['--repo=help'], { repo: 'help' }],
    [['--repo=--help'], { repo: '--help' }],
  ])('%j is not the help', (argv, values) => {
    const t = io();
    expect(parseCommand(argv, t, USAGE, table)).toEqual(values);
    expect(t.out).toBe('');
  });

  test('a negative-looking value goes to its flag, for the flag\'s own check to refuse', () => {
    expect(parseCommand(['--timeout', '-5m'], io(), USAGE, table)).toEqual({ timeout: '-5m' });
  });

  test.each<[string[], string]>([
    [['--rpo', 'x'], 'unknown flag --rpo; did you mean --repo?'],
    [['--rpo=x'], 'unknown flag --rpo; did you mean --repo?'],
    [['--timout', '5m'], 'unknown flag --timout; did you mean --timeout?'],
    [['--jsno'], 'unknown flag --jsno; did you mean --json?'],
    [['--refname', 'a'], 'unknown flag --refname; did you mean --ref-name?'],
    [['-repo', '.'], 'unknown flag -repo; did you mean --repo?'],
    [['--json', '--nope'], 'unknown flag --nope; devpkg x --help lists the flags'],
    [['-x'], 'unknown flag -x; devpkg x --help lists the flags'],
    [['--timeout'], "Option '--timeout <value>' argument missing"],
    [['stray'], "Unexpected argument 'stray'"],
    [['help', 'me'], "Unexpected argument 'help'"],
  ])('%j is a usage error on one line: %s', (argv, message) => {
    const err = usageError(argv);
    expect(err).toBeInstanceOf(UsageError);
    expect(err!.message).toMatch(new RegExp(`^${message.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    expect(err!.message).not.toContain('\n');
  });
});

describe('wantsHelp', () => {
  test.each<[string[], boolean]>([
    [['--help'], true],
    [['-h'], true],
    [['help'], true],
    [['--all', '--help'], true],
    [['--', '--help'], false],
    [['--', 'help'], false],
    [['help', '--all'], false],
    [['--repo', 'help'], false],
    [['--help=x'], false],
    [[], false],
  ])('%j: %s', (argv, expected) => {
    expect(wantsHelp(argv)).toBe(expected);
  });
});

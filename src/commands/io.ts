import { parseArgs, type ParseArgsConfig } from 'node:util';
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../errors.js';
import { applyConfig } from '../config/index.js';
import { closest } from '../suggest.js';

/** What a command may touch of the outside world; tests hand in their own. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /**
   * Asked for its help, a command also hands its flag table here (parseCommand does): how
   * `devpkg completion` learns each command's flags from the table that parses them.
   */
  flagTable?: (options: Options) => void;
}

export type CommandRun = (argv: string[], io: CliIO) => Promise<number>;

export type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * A command's first steps, with devpkg's conventions: util.parseArgs over its flags, where an
 * unknown flag or a missing value is a usage error (exit 2) naming the flag, and the help is
 * always accepted and answered with the command's usage text. Returns the flag values, or
 * undefined once the usage is printed (the command then exits 0).
 */
export function parseCommand<O extends Options>(argv: string[], io: CliIO, usage: string, options: O) {
  const all = { ...options, ...CONFIG_FLAG };
  if (!wantsHelp(argv)) {
    const values = parseFlags(argv, all, usage);
    // Flags not given come from DEVPKG_* and devpkg.yaml (--config FILE names another).
    applyConfig(values as Record<string, string | boolean | undefined>, options as Record<string, { type: 'string' | 'boolean' }>, io);
    return values;
  }
  // The table as the command declares it (completion's); --config is shown in every help below.
  io.flagTable?.(options);
  io.stdout(withConfigLine(usage));
  return undefined;
}

/** A command's help with the --config line every command takes, above its -h line. */
export function withConfigLine(usage: string): string {
  const h = /^ {2}-h, --help( +)show this help$/m.exec(usage);
  if (!h || /^ {2}--config /m.test(usage)) return usage;
  const line = `  ${'--config FILE'.padEnd('-h, --help'.length + h[1]!.length - 1)} the devpkg.yaml to read instead of the one found (devpkg config --help)`;
  return usage.replace(h[0], `${line}
${h[0]}`);
}

/** Every command takes --config FILE: the devpkg.yaml to read instead of the one found. */
const CONFIG_FLAG = { config: { type: 'string' } } as const;

/**
 * `--help` or `-h` anywhere before `--` wins over every other flag, a wrong one included; so does
 * `help` when it is the only argument (no command takes a positional value, so it shadows none;
 * `--repo help` is still a value).
 */
export function wantsHelp(argv: string[]): boolean {
  if (argv.length === 1 && argv[0] === 'help') return true;
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

const HELP = { help: { type: 'boolean', short: 'h' } } as const;

function parseFlags<O extends Options>(argv: string[], options: O, usage: string) {
  const args = joinNegativeValues(argv, options);
  const unknown = unknownFlag(args, options);
  if (unknown !== undefined) throw new UsageError(unknownFlagMessage(unknown, Object.keys(options), usage));
  try {
    return parseArgs({ args, options: { ...HELP, ...options }, strict: true }).values;
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

/** The first flag the table does not know, as written (`--rpo`, `-x`, `-repo`; without `=VALUE`). */
function unknownFlag(args: string[], options: Options): string | undefined {
  const { tokens } = parseArgs({ args, options: { ...HELP, ...options }, strict: false, tokens: true });
  const known = new Set(['help', 'h', ...Object.keys(options)]);
  const token = tokens.find((t) => t.kind === 'option' && !known.has(t.name));
  return token && args[token.index]!.replace(/=.*$/s, '');
}

/** One line: the flag, and the flag meant (by edit distance) or where the flags are listed. */
export function unknownFlagMessage(flag: string, names: string[], usage: string): string {
  const guess = closest(flag.replace(/^--?/, ''), names);
  if (guess !== undefined) return `unknown flag ${flag}; did you mean --${guess}?`;
  const command = /^Usage: (devpkg [a-z-]+)/.exec(usage)?.[1] ?? 'devpkg <command>';
  return `unknown flag ${flag}; ${command} --help lists the flags`;
}

/**
 * `--timeout -5m`: util.parseArgs takes "-5m" for a flag and says "argument is ambiguous"; a
 * string flag followed by something that looks like a negative number gets it as its value, so
 * devpkg's own check of that value can say what is wrong.
 */
export function joinNegativeValues(argv: string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const name = a.startsWith('--') ? a.slice(2) : undefined;
    const next = argv[i + 1];
    if (name && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else {
      out.push(a);
    }
  }
  return out;
}

export function requireFlag<T>(value: T | undefined, flag: string, command: string): T {
  if (value === undefined || value === '') {
    throw new UsageError(`${flag} is required (see devpkg ${command} --help)`);
  }
  return value;
}

/** Durations are parsed (and bounded) in src/flags.ts, shared with the action inputs. */
export { parseDuration } from '../flags.js';

/** A folder flag (e.g. --repo) must name a folder that exists: a usage error naming the flag otherwise. */
export async function requireFolder(dir: string, flag: string, what = 'folder'): Promise<string> {
  const kind = await stat(dir).then((st) => (st.isDirectory() ? 'dir' : 'file'), () => 'none');
  if (kind === 'none') throw new UsageError(`${flag}: the ${what} ${dir} does not exist`);
  if (kind === 'file') throw new UsageError(`${flag}: ${dir} is a file; give the ${what}`);
  return dir;
}

/**
 * A folder devpkg will create later (--diagnostics): checked now by creating and removing its
 * first missing component, so a bad path is a usage error up front and nothing is left behind.
 * (Node's recursive mkdir spins forever under /proc, which once held a finished run open.)
 */
export async function requireCreatableFolder(dir: string, flag: string): Promise<string> {
  const missing: string[] = [];
  let cur = dir;
  let kind = await stat(cur).then((st) => (st.isDirectory() ? 'dir' : 'file'), () => 'none');
  while (kind === 'none' && dirname(cur) !== cur) {
    missing.unshift(cur);
    cur = dirname(cur);
    kind = await stat(cur).then((st) => (st.isDirectory() ? 'dir' : 'file'), () => 'none');
  }
  if (kind === 'file') throw new UsageError(`${flag}: ${cur} is a file, so ${dir} cannot be a folder; give a folder devpkg can create`);
  if (missing.length > 0) {
    try {
      await mkdir(missing[0]!);
      await rmdir(missing[0]!);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new UsageError(`${flag}: cannot create ${dir} (${e.code ?? e.message} at ${missing[0]}); give a folder devpkg can create`);
    }
  }
  return dir;
}

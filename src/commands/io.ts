import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';

/** What a command may touch of the outside world; tests hand in their own. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export type CommandRun = (argv: string[], io: CliIO) => Promise<number>;

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * util.parseArgs with devpkg's conventions: unknown flags and missing values are
 * usage errors (exit 2) that name the flag; `--help` is always accepted.
 */
export function parseFlags<O extends Options>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      allowPositionals,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ''));
  }
}

export function requireFlag<T>(value: T | undefined, flag: string, command: string): T {
  if (value === undefined || value === '') {
    throw new UsageError(`${flag} is required (see devpkg ${command} --help)`);
  }
  return value;
}

/** Parses durations such as "90", "90s", "5m", "1h30m" into milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    const n = Number(m[1]);
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60000 : n * 3600000;
    matched = re.lastIndex;
  }
  if (matched !== t.length || t.length === 0) {
    throw new UsageError(`${flag}: "${text}" is not a duration; use e.g. 90s, 5m or 1h`);
  }
  return total;
}

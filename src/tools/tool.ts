/**
 * What the command-line tool wrappers (docker, kind, kbld, imgpkg, git, tanzu) have in common:
 * asking a tool its version when it is found, refusing one that is too old, and quoting the end
 * of a failed call's output in an error.
 */
import { DevpkgError } from '../errors.js';
import type { ExecFn, ExecOptions, ExecResult } from './exec.js';

/** The last `n` lines of a tool's output, trimmed: what an error message quotes. */
export function lastLines(text: string, n: number): string {
  return text.trim().split('\n').slice(-n).join('\n');
}

/** The refusal of a version answer that cannot be read: "<path> version: unexpected answer (exit N): <its last lines>". */
export function unexpectedVersionAnswer(path: string, r: ExecResult): string {
  return `${path} version: unexpected answer (exit ${r.code}): ${lastLines(r.stdout + r.stderr, 5)}`;
}

/**
 * Asks a tool its version: runs `path args` and returns what `parse` reads from its stdout. A
 * non-zero exit, or an answer `parse` cannot read (undefined), is a DevpkgError worded by
 * `refusal` (by default unexpectedVersionAnswer).
 */
export async function askVersion<V>(
  exec: ExecFn,
  path: string,
  args: string[],
  parse: (stdout: string) => V | undefined,
  refusal: (r: ExecResult) => string = (r) => unexpectedVersionAnswer(path, r),
  opts: ExecOptions = {},
): Promise<V> {
  const r = await exec(path, args, { ...opts, allowFail: true });
  const version = parse(r.stdout);
  if (r.code !== 0 || version === undefined) throw new DevpkgError(refusal(r));
  return version;
}

/** Refuses a version below `min` (major, minor): "<tool> 1.2.3 is too old; devpkg needs <tool> 1.5 or newer". */
export function requireAtLeast(tool: string, version: readonly number[], min: readonly [number, number]): void {
  const [maj, minor] = min;
  if (version[0]! < maj || (version[0] === maj && version[1]! < minor)) {
    throw new DevpkgError(`${tool} ${version.join('.')} is too old; devpkg needs ${tool} ${maj}.${minor} or newer`);
  }
}

/**
 * A tool found and asked its version once (each subclass's static `create`, through askVersion);
 * every later call goes through `exec` with an argv array, never a shell, so that tests can hand
 * in a recorder.
 */
export abstract class VersionedTool<V> {
  protected constructor(
    readonly path: string,
    readonly version: V,
    protected readonly exec: ExecFn,
  ) {}
}

/**
 * An error the user can act on. The message names the thing that is wrong and
 * what to do about it; `file`/`line` let the action turn it into an annotation.
 */
export class DevpkgError extends Error {
  readonly file?: string;
  readonly line?: number;
  /** Process exit code when this reaches the CLI: 1 = a check failed, 2 = bad usage. */
  readonly exitCode: number;

  constructor(message: string, opts: { file?: string; line?: number; exitCode?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'DevpkgError';
    this.file = opts.file;
    this.line = opts.line;
    this.exitCode = opts.exitCode ?? 1;
  }
}

/** Bad command-line usage or bad action input: exit code 2. */
export class UsageError extends DevpkgError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
    this.name = 'UsageError';
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}

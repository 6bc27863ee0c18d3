import { appendFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

/** The runner's command files: devpkg writes outputs, state and the job summary there. */
export const RUNNER_FILES = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_STEP_SUMMARY'] as const;

/**
 * Checks, before anything runs, that every command file that is set can be written (created when
 * missing, as the runner would). Otherwise @actions/core fails late with "Missing file at path"
 * and no word of which setting is wrong.
 */
export function checkRunnerFiles(env: NodeJS.ProcessEnv, append: (file: string, text: string) => void = appendFileSync): void {
  for (const name of RUNNER_FILES) {
    const file = env[name];
    if (!file) continue;
    try {
      append(file, '');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new UsageError(
        `${name} is set to ${file}, which cannot be created or written (${e.code ?? e.message}); ` +
          `the runner sets ${name} itself: unset it, or point it at a writable file`,
      );
    }
  }
}

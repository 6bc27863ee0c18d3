import type { ActionHost } from '../action/host.js';
import type { GithubContext } from '../action/context.js';
import type { ExecFn } from '../tools/exec.js';
import type { Inputs } from '../inputs.js';

/** Everything a mode needs; built by main.ts, built by hand in tests. */
export interface ModeContext {
  inputs: Inputs;
  github: GithubContext;
  host: ActionHost;
  exec: ExecFn;
  env: NodeJS.ProcessEnv;
  /** Where publishReport writes the results folder (default $RUNNER_TEMP/devpkg-<artifact-name>); the CLI's --results-dir. */
  resultsDir?: string;
  /** Aborted on SIGINT/SIGTERM (the runner cancelling the job): waits end `interrupted`. */
  signal?: AbortSignal;
}

/** A mode throws a DevpkgError on failure, after writing its outputs. */
export type ModeRun = (ctx: ModeContext) => Promise<void>;

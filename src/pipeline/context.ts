import type { RunOwner } from '../cluster/leftovers.js';
import type { ActionHost } from '../action/host.js';
import type { GithubContext } from '../action/context.js';
import type { ExecFn } from '../tools/exec.js';
import type { Inputs } from '../inputs.js';
import type { InstallPolicy } from '../tools/toolcache.js';

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
  /** Whether missing tools (kind, imgpkg, ytt) are installed, pinned and checked (default yes; the CLI's --no-install refuses). */
  install?: InstallPolicy;
  /** Who this run is, for the labels on what kind mode creates (default: worked out from github.local). */
  owner?: RunOwner;
}

/** A mode throws a DevpkgError on failure, after writing its outputs. */
export type ModeRun = (ctx: ModeContext) => Promise<void>;

import { coreHost } from './action/host.js';
import { readGithubContext } from './action/context.js';
import { checkRunnerFiles } from './action/files.js';
import { parseInputs } from './inputs.js';
import { configuredInputs } from './config/index.js';
import type { Mode } from './results.js';
import { execTool } from './tools/exec.js';
import { DevpkgError, errorMessage } from './errors.js';
import { watchSignals } from './interrupt.js';
import type { ModeRun } from './pipeline/context.js';

const MODE_MODULES: Record<Mode, () => Promise<{ run: ModeRun }>> = {
  plan: () => import('./modes/plan.js'),
  detect: () => import('./modes/detect.js'),
  kind: () => import('./modes/kind.js'),
  cluster: () => import('./modes/cluster.js'),
  bootstrap: () => import('./modes/bootstrap.js'),
  report: () => import('./modes/report.js'),
};

/**
 * The action's main step: build Inputs, run the mode, fail once (one setFailed, here, so no
 * error path can skip it).
 */
export async function runMain(): Promise<void> {
  // Loaded here, not at the top: the CLI shares the bundle's entry and never needs it.
  const core = await import('@actions/core');
  const host = coreHost(core);
  // The runner cancels a job with SIGINT (then SIGTERM): the wait stops, the result, diagnostics
  // and job summary are still written, and the step exits with the signal's code.
  const interruption = watchSignals({ log: (m) => core.info(m) });
  try {
    checkRunnerFiles(process.env);
    const github = readGithubContext(process.env);
    // Inputs left empty come from DEVPKG_* and the repository's devpkg.yaml (src/config).
    const inputs = parseInputs(configuredInputs(core, process.env, github.workspace));
    host.setSecret(inputs.registryPassword);
    host.setSecret(inputs.githubToken);
    const mode = await MODE_MODULES[inputs.mode]();
    await mode.run({ inputs, github, host, exec: execTool, env: process.env, signal: interruption.signal });
  } catch (err) {
    if (err instanceof DevpkgError && err.file) {
      host.error(err.message, { file: err.file, line: err.line });
    }
    // A run that failed is a failure, whatever it found before (never `skipped`: issue 35).
    try {
      core.setOutput('result', 'failure');
    } catch {
      // The outputs file itself is what failed (checkRunnerFiles said so): setFailed below says it.
    }
    core.setFailed(errorMessage(err));
  } finally {
    interruption.dispose();
    await (await import('./tools/git.js')).closeGitReaders();
  }
  const code = interruption.exitCode();
  if (code !== undefined) {
    core.error(`devpkg was interrupted by ${interruption.received()}; the results above are what it saw until then`);
    process.exitCode = code;
  }
}

/** The name @github/local-action calls: `npx @github/local-action run . src/main.ts .env`. */
export const run = runMain;

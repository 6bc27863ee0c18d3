// Runs the action in-process (runMain) as a workflow_dispatch in a workspace, with what a runner
// gives it (GITHUB_OUTPUT, GITHUB_STATE, GITHUB_STEP_SUMMARY, RUNNER_TEMP) in temp files, and
// returns its outputs, what it printed and its job summary. Use with actionTestScope, which puts
// process.env and process.exitCode back after each test.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { jest } from '@jest/globals';
import { runMain } from '../../src/main.js';

// @actions/core's summary keeps the first file it was given: one for every test file (jest loads
// this module once per test file), emptied before each run.
let summaryFile: string | undefined;

export interface ActionRun {
  outputs: Record<string, string>;
  printed: string;
  summary: string;
}

/**
 * `dirs`: actionTestScope's list (the summary's folder goes there, removed after the file).
 * `inputs`: INPUT_* and any other variable of the runner's (GITHUB_API_URL, ...); `event`: the
 * event file's content (default `{}`, a workflow_dispatch), with GITHUB_EVENT_NAME in `inputs`.
 */
export async function runAction(dirs: string[], workspace: string, inputs: Record<string, string>, event: Record<string, unknown> = {}): Promise<ActionRun> {
  if (!summaryFile) {
    summaryFile = join(mkdtempSync(join(tmpdir(), 'devpkg-action-summary-')), 'summary');
    dirs.push(dirname(summaryFile));
  }
  const work = mkdtempSync(join(tmpdir(), 'devpkg-action-run-'));
  for (const f of ['output', 'state']) writeFileSync(join(work, f), '');
  writeFileSync(summaryFile, '');
  writeFileSync(join(work, 'event.json'), JSON.stringify(event));
  for (const k of Object.keys(process.env)) if (k.startsWith('INPUT_')) delete process.env[k];
  Object.assign(process.env, {
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_EVENT_PATH: join(work, 'event.json'),
    GITHUB_WORKSPACE: workspace,
    GITHUB_REPOSITORY: 'example/packages',
    GITHUB_RUN_ID: '1',
    GITHUB_RUN_NUMBER: '5',
    GITHUB_RUN_ATTEMPT: '1',
    GITHUB_OUTPUT: join(work, 'output'),
    GITHUB_STATE: join(work, 'state'),
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: work,
    INPUT_COMMENT: 'false',
    'INPUT_ARTIFACT-NAME': 'devpkg-results',
    'INPUT_COMMENT-HEADER': 'devpkg',
    ...inputs,
  });
  process.exitCode = 0;
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  let printed = '';
  try {
    await runMain();
  } finally {
    printed = write.mock.calls.map((c) => String(c[0])).join('');
    write.mockRestore();
  }
  const text = readFileSync(join(work, 'output'), 'utf8');
  const outputs: Record<string, string> = {};
  for (const m of text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[m[1]!] = m[3]!;
  const summary = readFileSync(summaryFile, 'utf8');
  rmSync(work, { recursive: true, force: true });
  return { outputs, printed, summary };
}

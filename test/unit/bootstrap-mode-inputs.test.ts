// Bootstrap mode in process: a dev-version that would lose is the run's error result before ytt or
// the tanzu CLI is looked for or installed (no ytt on PATH and installing refused, so reaching that
// step would be the error instead).
import { expect, test } from '@jest/globals';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { RecordingHost } from '../../src/action/host.js';
import { parseInputs } from '../../src/inputs.js';
import { run } from '../../src/modes/bootstrap.js';
import type { ExecFn } from '../../src/tools/exec.js';
import { actionTestScope } from '../support/action-scope.js';
import { inputsFrom } from '../support/inputs.js';

const dirs = actionTestScope();

test('a losing dev-version: an error result naming it, before ytt or the tanzu CLI is asked for', async () => {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-bootstrap-mode-'));
  dirs.push(work);
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  const calls: string[] = [];
  const exec: ExecFn = async (cmd, args) => (calls.push([cmd, ...args].join(' ')), { code: 127, stdout: '', stderr: `${cmd}: not found` });
  const inputs = parseInputs(
    inputsFrom({ mode: 'bootstrap', packages: 'antrea/1.5.3', registry: 'localhost:5001/devpkg', 'cluster-config': 'mc.yaml', 'dev-version': '1.5.2', 'host-check': 'false', comment: 'false' }),
  );
  const host = new RecordingHost();
  const github = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '1', runNumber: 1, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: repo,
  };
  const err = await run({ inputs, github, host, exec, env: { PATH: '', RUNNER_TEMP: work }, resultsDir: join(work, 'results'), install: { refuse: true } }).catch((e: Error) => e);
  expect(err).toBeInstanceOf(Error);
  const doc = JSON.parse(readFileSync(join(work, 'results', 'results.json'), 'utf8')) as { results: Array<{ verdict: string; reason?: string }> };
  const [result] = doc.results;
  expect(result!.verdict).toBe('error');
  expect(result!.reason).toMatch(/^dev-version 1\.5\.2 does not outrank 1\.5\.3/);
  expect(JSON.stringify(doc)).not.toMatch(/ytt/);
  expect(calls).toEqual([]);
});

/** mode: report against the GitHub stand-in: matrix legs and the fork-safe workflow_run pair. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RecordingHost } from '../../src/action/host.js';
import type { GithubContext } from '../../src/action/context.js';
import { parseInputs } from '../../src/inputs.js';
import { inputsFrom } from '../support/inputs.js';
import { run } from '../../src/modes/report.js';
import type { ModeContext } from '../../src/pipeline/context.js';
import { marker, type GitHubClient } from '../../src/report/comment.js';
import { publishReport } from '../../src/report/publish.js';
import type { PlannedPackage } from '../../src/results.js';
import { GitHubStandin, pullRequestContext, startStandin, stopStandin } from '../support/github-standin.js';
import { lostBootstrap, reconcileFailed, wonKind } from '../support/report-fixtures.js';

let standin: GitHubStandin;
let octokit: GitHubClient;
let dir: string;
const HEAD = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

beforeEach(async () => ({ standin, octokit, dir } = await startStandin('devpkg-report-mode-')));
afterEach(async () => stopStandin({ standin, dir }));

function github(over: Partial<GithubContext> = {}): GithubContext {
  return pullRequestContext({ standin, dir }, { sha: HEAD, serverUrl: 'https://github.com', headSha: HEAD, ...over });
}

function modeCtx(inputs: Record<string, string>, gh: Partial<GithubContext> = {}): ModeContext & { host: RecordingHost } {
  return {
    inputs: parseInputs(inputsFrom(inputs)),
    github: github(gh),
    host: new RecordingHost(),
    exec: async () => ({ code: 0, stdout: '', stderr: '' }),
    env: { RUNNER_TEMP: join(dir, 'runner-temp') },
  };
}

/** What one matrix leg leaves in its artifact, as publishReport writes it. */
async function leg(name: string, results: PlannedPackage[], gh: Partial<GithubContext> = {}): Promise<void> {
  const host = new RecordingHost();
  await publishReport({
    results,
    ctx: {
      inputs: { mode: 'kind', githubToken: '', comment: false, commentHeader: 'devpkg', artifactName: name },
      github: github(gh),
      host,
      env: {},
    },
    resultsDir: join(dir, 'downloaded', name),
  });
}

test('matrix legs: one comment with every leg, linked to its run and artifact', async () => {
  await leg('devpkg-results-antrea-1.5.3', [wonKind()]);
  await leg('devpkg-results-calico-3.22.1', [reconcileFailed()]);
  const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') });
  await run(ctx, { octokit });
  const [comment, ...rest] = standin.commentsOn(7);
  expect(rest).toEqual([]);
  expect(comment!.body.startsWith(marker('devpkg'))).toBe(true);
  expect(comment!.body).toContain('## ❌ devpkg · kind: 1 of 2 package versions failed');
  expect(comment!.body).toContain(
    '[artifact devpkg-results-calico-3.22.1](https://github.com/example/tce/actions/runs/42#artifacts)',
  );
  expect(ctx.host.outputs.result).toBe('failure');
  expect(JSON.parse(ctx.host.outputs.results!).map((r: PlannedPackage) => r.name)).toEqual(['antrea', 'calico']);
  expect(ctx.host.warnings).toEqual([]);
});

test('a re-run leg counts once, its latest attempt', async () => {
  await leg('devpkg-results-a1', [reconcileFailed('antrea', '1.5.3')]);
  await leg('devpkg-results-a2', [{ ...wonKind(), mode: 'kind' }], { runAttempt: 2 });
  const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') });
  await run(ctx, { octokit });
  expect(ctx.host.outputs.result).toBe('success');
});

describe('workflow_run from a fork pull request', () => {
  const wr = (headSha: string): Partial<GithubContext> => ({
    eventName: 'workflow_run',
    prNumber: undefined,
    headSha: undefined,
    event: { workflow_run: { id: 41, head_sha: headSha, pull_requests: [] } },
  });

  test('comments on the pull request the artifact names, once its head matches the run', async () => {
    await leg('devpkg-results', [lostBootstrap()], { runId: '41' });
    standin.pulls.set(7, { headSha: HEAD });
    const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') }, wr(HEAD));
    await run(ctx, { octokit });
    expect(standin.count('GET', /\/pulls\/7$/)).toBe(1);
    const body = standin.commentsOn(7)[0]!.body;
    expect(body).toContain('antrea 1.5.3: lost after winning');
    expect(body).toContain('(https://github.com/example/tce/actions/runs/41)');
  });

  test('a same-repository pull request named by the event needs no check', async () => {
    await leg('devpkg-results', [wonKind()], { runId: '41', prNumber: 9 });
    const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') }, {
      ...wr(HEAD),
      event: { workflow_run: { id: 41, head_sha: HEAD, pull_requests: [{ number: 9 }] } },
    });
    await run(ctx, { octokit });
    expect(standin.count('GET', /\/pulls\//)).toBe(0);
    expect(standin.commentsOn(9)).toHaveLength(1);
  });

  test('an artifact that names another pull request gets no comment', async () => {
    await leg('devpkg-results', [wonKind()], { runId: '41' });
    standin.pulls.set(7, { headSha: 'ffffffffffffffffffffffffffffffffffffffff' });
    const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') }, wr(HEAD));
    await run(ctx, { octokit });
    expect(standin.comments.size).toBe(0);
    expect(ctx.host.warnings.map((w) => w.message).join('\n')).toMatch(/name pull request #7, whose head is ffffffffffff.*no comment/);
    expect(ctx.host.summaries).toHaveLength(1);
  });

  test('a forged artifact: its text is escaped and its links dropped', async () => {
    const out = join(dir, 'downloaded', 'devpkg-results');
    await mkdir(out, { recursive: true });
    const forged = {
      schema: 'devpkg.results/v1',
      repository: 'example/tce',
      prNumber: 7,
      runId: '41',
      runAttempt: 1,
      runUrl: 'https://evil.example/phish/actions/runs/1',
      artifactName: 'x](https://evil.example)',
      commentHeader: 'devpkg',
      mode: 'kind',
      result: 'success',
      createdAt: '2026-11-29T00:00:00Z',
      results: [
        { ...wonKind(), name: '[click](https://evil.example) @everyone <img src=x>', timeline: 'nope', phases: [{ name: 42 }] },
        { name: 'no-version' },
      ],
    };
    await writeFile(join(out, 'results.json'), JSON.stringify(forged));
    standin.pulls.set(7, { headSha: HEAD });
    const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') }, wr(HEAD));
    await run(ctx, { octokit });
    const body = standin.commentsOn(7)[0]!.body;
    expect(body).not.toMatch(/(?<!\\)\]\(https:\/\/evil/);
    expect(body).not.toContain('evil.example/phish');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('@everyone');
    expect(body).toContain('\\[click\\](https://evil.example) @\u200beveryone &lt;img src=x&gt;');
    expect(ctx.host.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/result 1: name, version or verdict missing/)]);
  });
});

test('results of another repository and broken files are warned about and skipped', async () => {
  await leg('devpkg-results-other', [wonKind()], { owner: 'someone', repo: 'else' });
  await mkdir(join(dir, 'downloaded', 'broken'), { recursive: true });
  await writeFile(join(dir, 'downloaded', 'broken', 'results.json'), '{not json');
  const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') });
  await run(ctx, { octokit });
  const warnings = ctx.host.warnings.map((w) => w.message).join('\n');
  expect(warnings).toMatch(/broken\/results.json: not JSON/);
  expect(warnings).toMatch(/results of someone\/else, not example\/tce; ignored/);
  expect(warnings).toMatch(/nothing to post/);
  expect(standin.comments.size).toBe(0);
});

test('results-path is required', async () => {
  await expect(run(modeCtx({ mode: 'report' }), { octokit })).rejects.toThrow(/mode report needs results-path/);
});

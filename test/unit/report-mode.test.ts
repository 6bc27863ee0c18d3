/** mode: report against the GitHub stand-in: matrix legs and the fork-safe workflow_run pair. */
import { readdirSync } from 'node:fs';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
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
import { actionTestScope } from '../support/action-scope.js';
import { proseOf } from '../support/markdown.js';
import { runAction, type ActionRun } from '../support/run-action.js';
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
    event: { workflow_run: { id: 41, head_sha: headSha, head_branch: 'fix', head_repository: { full_name: 'contributor/tce', owner: { login: 'contributor' } }, pull_requests: [] } },
  });

  test('comments on the pull request the artifact names, once its head matches the run', async () => {
    await leg('devpkg-results', [lostBootstrap()], { runId: '41' });
    standin.pulls.set(7, { headSha: HEAD });
    const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') }, wr(HEAD));
    await run(ctx, { octokit });
    expect(standin.count('GET', /\/pulls\/7$/)).toBe(1);
    const body = standin.commentsOn(7)[0]!.body;
    expect(body).toContain('<summary>❌ <b>antrea 1.5.3</b>: lost after winning — ');
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
      results: [{ ...wonKind(), name: '[click](https://evil.example) @everyone <img src=x>' }],
    };
    await writeFile(join(out, 'results.json'), JSON.stringify(forged));
    standin.pulls.set(7, { headSha: HEAD });
    const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') }, wr(HEAD));
    await run(ctx, { octokit });
    const body = standin.commentsOn(7)[0]!.body;
    const prose = proseOf(body);
    expect(body).not.toMatch(/(?<!\\)\]\(https:\/\/evil/);
    expect(body).not.toContain('evil.example/phish');
    expect(body).not.toContain('<img');
    expect(prose).not.toContain('@everyone');
    expect(prose).not.toContain('https://evil');
    expect(body).toContain('\\[click\\](https:\u200b//evil.example) @\u200beveryone &lt;img src=x&gt;');
    expect(ctx.host.warnings).toEqual([]);
  });

  test('a forged artifact of the wrong shape: no verdict for it, an error comment that replaces the green one', async () => {
    standin.seed(7, `${marker('devpkg')}\n## ✅ devpkg · kind: 1 of 1 package version verified`, 'github-actions[bot]');
    const out = join(dir, 'downloaded', 'devpkg-results');
    await mkdir(out, { recursive: true });
    const forged = { schema: 'devpkg.results/v1', repository: 'example/tce', prNumber: 7, runId: '41', results: [{ ...wonKind(), timeline: 'nope' }, { name: 'no-version' }] };
    await writeFile(join(out, 'results.json'), JSON.stringify(forged));
    // The refused file's pull request number counts for nothing: GitHub names the pull request of the run's head.
    standin.pulls.set(7, { headSha: HEAD, head: 'contributor:fix' });
    const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') }, wr(HEAD));
    await run(ctx, { octokit });
    expect(standin.count('GET', /\/pulls\?.*head=contributor%3Afix/)).toBe(1);
    const [comment, ...rest] = standin.commentsOn(7);
    expect(rest).toEqual([]);
    expect(comment!.body).toContain('## 💥 devpkg: 1 results file could not be read');
    expect(comment!.body).toContain('`devpkg-results/results.json`: does not match devpkg.results/v1: results\\[0\\].timeline: expected an array; results\\[1\\].verdict: missing');
    expect(comment!.body).not.toContain('✅');
    expect(ctx.host.outputs.result).toBe('failure');
    expect(ctx.host.errors.map((e) => e.message)).toEqual([expect.stringMatching(/1 results file\(s\) .* could not be read.*devpkg-results\/results.json/)]);
  });
});

test('results of another repository and broken files: an error report naming each, the result failure', async () => {
  await leg('devpkg-results-other', [wonKind()], { owner: 'someone', repo: 'else' });
  await mkdir(join(dir, 'downloaded', 'broken'), { recursive: true });
  await writeFile(join(dir, 'downloaded', 'broken', 'results.json'), '{not json');
  const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') });
  await run(ctx, { octokit });
  const warnings = ctx.host.warnings.map((w) => w.message).join('\n');
  expect(warnings).toMatch(/broken\/results.json: not JSON/);
  expect(warnings).toMatch(/results of someone\/else, not example\/tce/);
  const body = standin.commentsOn(7)[0]!.body;
  expect(body).toContain('## 💥 devpkg: 2 results files could not be read');
  expect(body).toContain('`broken/results.json`: not JSON');
  expect(body).toContain('`devpkg-results-other/results.json`: results of someone/else, not example/tce');
  expect(body).toContain('[the run that made them](https://github.com/example/tce/actions/runs/42)');
  expect(ctx.host.outputs.result).toBe('failure');
});

test('a diagnostics folder is copied into the report\'s results without the links below where the walk looks', async () => {
  const out = join(dir, 'downloaded', 'devpkg-results');
  const deep = join(out, 'diagnostics', 'antrea-1.5.3', 'a', 'b', 'c');
  await mkdir(deep, { recursive: true });
  await writeFile(join(deep, 'log.txt'), 'ok');
  await symlink('/etc/passwd', join(deep, 'passwd'));
  const failedOne = { ...reconcileFailed('antrea', '1.5.3'), diagnostics: { dir: 'diagnostics/antrea-1.5.3', excerpt: 'x' } };
  await writeFile(join(out, 'results.json'), JSON.stringify({ schema: 'devpkg.results/v1', repository: 'example/tce', runId: '42', results: [failedOne] }));
  const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') });
  await run(ctx, { octokit });
  expect(readdirSync(join(ctx.host.outputs['results-dir']!, 'diagnostics', 'antrea-1.5.3', 'a', 'b', 'c'))).toEqual(['log.txt']);
  expect(standin.commentsOn(7)[0]!.body).toContain('<summary>❌ <b>antrea 1.5.3</b>: reconcile failed — ');
});

test('no results file at all: nothing to post, as before', async () => {
  await mkdir(join(dir, 'downloaded'), { recursive: true });
  const ctx = modeCtx({ mode: 'report', 'results-path': join(dir, 'downloaded') });
  await run(ctx, { octokit });
  expect(ctx.host.warnings.map((w) => w.message).join('\n')).toMatch(/nothing to post/);
  expect(standin.comments.size).toBe(0);
});

test('results-path is required', async () => {
  await expect(run(modeCtx({ mode: 'report' }), { octokit })).rejects.toThrow(/mode report needs results-path/);
});

describe('a hostile artifact, end to end (the action in process, GitHub played by the stand-in): comment, summary and log', () => {
  const dirs = actionTestScope();
  const YESTERDAY = "## ✅ devpkg · kind: 1 of 1 package version verified (yesterday's run)";
  const document = (results: unknown[]) => ({ schema: 'devpkg.results/v1', repository: 'example/tce', prNumber: 7, runId: '41', runAttempt: 1, runUrl: 'https://github.com/example/tce/actions/runs/41', artifactName: 'devpkg-results', commentHeader: 'devpkg', mode: 'kind', result: 'failure', createdAt: '2026-12-01T00:00:00Z', results });
  const json = (results: unknown[]) => async (out: string) => writeFile(join(out, 'results.json'), JSON.stringify(document(results)));
  const failed = (over: Record<string, unknown>) => ({ ...reconcileFailed('antrea', '1.5.3'), diagnostics: undefined, ...over });

  /** The fork's run left `write`'s files in its artifact; yesterday's comment was green; the report job runs. */
  async function report(write: (out: string) => Promise<unknown>): Promise<ActionRun & { body: string }> {
    standin.seed(7, `${marker('devpkg')}\n${YESTERDAY}`, 'github-actions[bot]');
    standin.pulls.set(7, { headSha: HEAD, head: 'contributor:fix' });
    const out = join(dir, 'downloaded', 'devpkg-results');
    await mkdir(out, { recursive: true });
    await write(out);
    const r = await runAction(
      dirs,
      dir,
      {
        INPUT_MODE: 'report',
        'INPUT_RESULTS-PATH': join(dir, 'downloaded'),
        INPUT_COMMENT: 'true',
        'INPUT_GITHUB-TOKEN': 'test-token',
        GITHUB_EVENT_NAME: 'workflow_run',
        GITHUB_REPOSITORY: 'example/tce',
        GITHUB_API_URL: standin.url,
        GITHUB_SERVER_URL: 'https://github.com',
        GITHUB_RUN_ID: '43',
      },
      { workflow_run: { id: 41, event: 'pull_request', head_sha: HEAD, head_branch: 'fix', head_repository: { full_name: 'contributor/tce', owner: { login: 'contributor' } }, pull_requests: [] } },
    );
    const comments = standin.commentsOn(7);
    // One sticky comment, today's: never yesterday's green after today's run.
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).not.toContain(YESTERDAY);
    return { ...r, body: comments[0]!.body };
  }

  /** What holds whatever the artifact held, in the comment, the job summary and the log. */
  function inert(r: ActionRun & { body: string }): void {
    for (const [where, s] of [['comment', r.body], ['summary', r.summary], ['log', r.printed]] as const) {
      // eslint-disable-next-line no-control-regex -- looking for what must not be there
      expect({ where, control: s.match(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/g) }).toEqual({ where, control: null });
      expect({ where, commands: s.split('\n').filter((l) => /^\s*::(set-output|add-mask::pwned|stop-commands|error::pwned)/.test(l)) }).toEqual({ where, commands: [] });
    }
    for (const [where, s] of [['comment', r.body], ['summary', r.summary]] as const) {
      const prose = proseOf(s);
      // An unescaped `](` starts a link (devpkg's own go to the runs only), `![` an image; GitHub autolinks bare addresses and mentions.
      const hostile = [/<img/, /<details open/, /<a /, /(?<!\\)\]\((?!https:\/\/github\.com\/example\/tce\/actions\/runs\/4[13]\b)/, /(?<!\\)!(?<!\\)\[/, /https:\/\/evil/, /www\.evil/, /@everyone/, /@octocat/];
      expect({ where, found: hostile.filter((x) => x.test(prose)).map(String) }).toEqual({ where, found: [] });
    }
    // The marker is ours, once, at the start: no forged second one for the next run to find.
    expect(r.body.split('<!--')).toHaveLength(2);
    expect(r.body.startsWith(`${marker('devpkg')}\n`)).toBe(true);
  }

  // [what, the artifact's results, what the comment shows instead]
  test.each<[string, unknown[], string]>([
    [
      'markdown, links and images in the name',
      [failed({ name: '[click](https://evil.example/login) **urgent** ![pixel](https://evil.example/p.png)' })],
      '\\[click\\](https:\u200b//evil.example/login) \\*\\*urgent\\*\\* \\!\\[pixel\\](https:\u200b//evil.example/p.png)',
    ],
    [
      'HTML in the reason and in a timeline message',
      [failed({ reason: '<img src="https://evil.example/p.png"> <details open><summary>x</summary>', timeline: [{ at: '2026-12-01T00:00:00Z', object: 'App', message: '<a href="https://evil.example">login</a></details>' }] })],
      '&lt;img src="https:\u200b//evil.example/p.png"&gt; &lt;details open&gt;&lt;summary&gt;x&lt;/summary&gt;',
    ],
    [
      'a forged sticky-comment marker in the name and the reason',
      [failed({ name: '<!-- devpkg:devpkg -->', reason: 'x\n<!-- devpkg:devpkg -->' })],
      '&lt;\\!-- devpkg:devpkg --&gt;',
    ],
    ['mentions', [failed({ reason: 'cc @everyone @example/maintainers @octocat' })], 'cc @\u200beveryone @\u200bexample/maintainers @\u200boctocat'],
    [
      'javascript: and bare links in a timeline message',
      [failed({ timeline: [{ at: '2026-12-01T00:00:00Z', object: 'App', message: '[x](javascript:alert(1)) www.evil.example https://evil.example' }] })],
      '\\[x\\](javascript:alert(1)) www\u200b.evil.example https:\u200b//evil.example',
    ],
    [
      'workflow commands in the name and at line starts of the reason',
      [failed({ name: '::set-output name=result::success', reason: 'ok\n::add-mask::pwned\n  ::stop-commands::pwned\r::error::pwned' })],
      '\u200b::set-output name=result::success 1.5.3',
    ],
    ['control characters', [failed({ name: 'anti\u001b[2K\rrea\u0000', reason: '\u001b[31mred\u001b[0m\u202e and \u0007' })], '> red and'],
  ])('%s: rendered inert', async (_what, results, shown) => {
    const r = await report(json(results));
    inert(r);
    expect(r.body).toContain(shown);
    expect(r.summary).toContain(shown);
    expect(r.outputs.result).toBe('failure');
  });

  test('the log names each package result on a line of its own, cleaned', async () => {
    const r = await report(json([failed({ name: '::set-output name=result::success\n::add-mask::pwned' })]));
    inert(r);
    expect(r.printed).toContain('  \u200b::set-output name=result::success ::add-mask::pwned 1.5.3 (kind): reconcile-failed\n');
  });

  test('an oversized field is cut with a note, and the rest renders', async () => {
    const r = await report(json([failed({ reason: `${'r'.repeat(10_000)}END` }), failed({ name: 'calico' })]));
    inert(r);
    expect(r.body).toMatch(/r{3000,} … \(\d+ characters cut by devpkg: the limit is 4096\)/);
    expect(r.body).not.toContain('rEND');
    expect(r.body).toContain('#### ✂️ Cut while reading the results');
    expect(r.body).toContain('devpkg-results/results.json: results\\[0\\].reason was cut to 4096 characters');
    expect(r.body).toContain('<summary>❌ <b>calico 1.5.3</b>: reconcile failed — ');
    expect(r.printed).toMatch(/::warning::results: devpkg-results\/results.json: results\[0\]\.reason was cut/);
  });

  // [what, the artifact, why the comment says it was refused]
  test.each<[string, (out: string) => Promise<unknown>, string]>([
    ['a results file that is not JSON', async (out) => writeFile(join(out, 'results.json'), '{"schema": "devpkg.results/v1", "results": [ ::set-output name=result::success'), '`devpkg-results/results.json`: not JSON'],
    ['an unknown verdict', json([failed({ verdict: 'passed' })]), 'results\\[0\\].verdict: "passed" is not one of won,'],
    ['a wrong type', json([failed({ timeline: { at: 'now' } })]), 'results\\[0\\].timeline: expected an array'],
    ['one broken result beside a good one', json([wonKind(), { ...wonKind(), name: 'calico', verdict: undefined }]), 'results\\[1\\].verdict: missing'],
    ['a diagnostics folder outside the artifact', json([failed({ diagnostics: { dir: '../../../../home/runner/.ssh', excerpt: '' } })]), 'is not a path inside the artifact'],
    ['a results.json that is a symbolic link', async (out) => symlink('/etc/hostname', join(out, 'results.json')), '`devpkg-results/results.json`: a symbolic link: refused'],
    [
      'a diagnostics folder that is a symbolic link',
      async (out) => {
        await symlink('/etc', join(out, 'diagnostics'));
        await json([failed({ diagnostics: { dir: 'diagnostics', excerpt: '' } })])(out);
      },
      '`devpkg-results/diagnostics`: a symbolic link: refused',
    ],
    ['a results file over 1 MiB', async (out) => writeFile(join(out, 'results.json'), JSON.stringify({ ...document([failed({})]), padding: 'x'.repeat(1024 * 1024) })), 'bytes, more than the 1048576 devpkg reads: refused unread'],
  ])('%s: refused and named; an error comment, never green', async (_what, write, why) => {
    const r = await report(write);
    inert(r);
    for (const s of [r.body, r.summary]) {
      expect(s).toContain('## 💥 devpkg');
      expect(s).toContain('#### 💥 Results that could not be read');
      expect(s).toContain(why);
      expect(s).toContain('[the run that made them](https://github.com/example/tce/actions/runs/41)');
      expect(s).not.toMatch(/✅ (devpkg|won)/);
    }
    expect(r.outputs.result).toBe('failure');
    expect(r.printed).toMatch(/^::error::\d results file\(s\) under .* could not be read/m);
  });
});

/**
 * The sticky comment and publishReport against the GitHub stand-in (test/support/github-standin.ts),
 * through a real Octokit with the retry and throttling plugins.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import { RecordingHost } from '../../src/action/host.js';
import type { GithubContext } from '../../src/action/context.js';
import { createOctokit, marker, upsertStickyComment, type GitHubClient } from '../../src/report/comment.js';
import { listFiles } from '../../src/report/artifact.js';
import { publishReport, stepRef, type PublishContext } from '../../src/report/publish.js';
import type { PlannedPackage } from '../../src/results.js';
import { GitHubStandin, pullRequestContext, startStandin, stopStandin } from '../support/github-standin.js';
import { lostBootstrap, planned, reconcileFailed, wonKind } from '../support/report-fixtures.js';

// The throttling plugin spaces writes one second apart, as it does against GitHub; most tests
// use a client without it (retry stays on), the race and the default client keep it.
jest.setTimeout(60_000);

let standin: GitHubStandin;
let octokit: GitHubClient;
let dir: string;
const log = { warning: () => undefined, info: () => undefined };
const PR = 7;

beforeEach(async () => ({ standin, octokit, dir } = await startStandin('devpkg-report-')));
afterEach(async () => stopStandin({ standin, dir }));

function github(over: Partial<GithubContext> = {}): GithubContext {
  return pullRequestContext({ standin, dir }, { sha: 'f00dfeed', serverUrl: 'https://github.example', headSha: '0123456789abcdef0123456789abcdef01234567', ...over });
}

function ctx(over: Partial<PublishContext['inputs']> = {}, gh: Partial<GithubContext> = {}): PublishContext & { host: RecordingHost } {
  return {
    inputs: { mode: 'kind', githubToken: 'test-token', comment: true, commentHeader: 'devpkg', artifactName: 'devpkg-results', ...over },
    github: github(gh),
    host: new RecordingHost(),
    env: { RUNNER_TEMP: dir },
  };
}

const markerOf = (c: { body: string }): boolean => c.body.startsWith(marker('devpkg'));

describe('sticky comment', () => {
  test('the first run creates one comment, a re-run updates it', async () => {
    standin.seed(PR, 'LGTM', 'reviewer');
    const target = { owner: 'example', repo: 'tce', issueNumber: PR, header: 'devpkg' };
    const first = await upsertStickyComment(octokit, target, 'first report');
    expect(first.action).toBe('created');
    const second = await upsertStickyComment(octokit, target, 'second report');
    expect(second).toMatchObject({ action: 'updated', id: first.id, deleted: [] });
    const comments = standin.commentsOn(PR);
    expect(comments).toHaveLength(2);
    expect(comments.filter(markerOf).map((c) => c.body)).toEqual([`${marker('devpkg')}\nsecond report`]);
    expect(standin.count('POST', /\/comments$/)).toBe(1);
    expect(standin.requests.every((r) => r.authorization === 'token test-token')).toBe(true);
  });

  test('each comment-header keeps its own comment', async () => {
    const t = (header: string) => ({ owner: 'example', repo: 'tce', issueNumber: PR, header });
    await upsertStickyComment(octokit, t('kind'), 'kind report');
    await upsertStickyComment(octokit, t('bootstrap'), 'bootstrap report');
    await upsertStickyComment(octokit, t('kind'), 'kind report 2');
    expect(standin.commentsOn(PR).map((c) => c.body)).toEqual([
      '<!-- devpkg:kind -->\nkind report 2',
      '<!-- devpkg:bootstrap -->\nbootstrap report',
    ]);
  });

  test('two runs racing leave one comment (throttled clients, as in the action)', async () => {
    // Both list before either has created: each creates, then both converge on the oldest.
    standin.delayMs = 50;
    const target = { owner: 'example', repo: 'tce', issueNumber: PR, header: 'devpkg' };
    const [one, other] = await Promise.all([createOctokit('test-token', standin.url, log), createOctokit('test-token', standin.url, log)]);
    const [a, b] = await Promise.all([
      upsertStickyComment(one, target, 'report A'),
      upsertStickyComment(other, target, 'report B'),
    ]);
    expect(standin.count('POST', /\/comments$/)).toBe(2);
    const left = standin.commentsOn(PR).filter(markerOf);
    expect(left).toHaveLength(1);
    expect(a.id).toBe(left[0]!.id);
    expect(b.id).toBe(left[0]!.id);
    expect([`${marker('devpkg')}\nreport A`, `${marker('devpkg')}\nreport B`]).toContain(left[0]!.body);
  });

  test('three runs racing without throttling leave one comment', async () => {
    standin.delayMs = 20;
    const target = { owner: 'example', repo: 'tce', issueNumber: PR, header: 'devpkg' };
    const outs = await Promise.all(['A', 'B', 'C'].map((n) => upsertStickyComment(octokit, target, `report ${n}`)));
    expect(standin.count('POST', /\/comments$/)).toBe(3);
    const left = standin.commentsOn(PR).filter(markerOf);
    expect(left).toHaveLength(1);
    expect(new Set(outs.map((o) => o.id))).toEqual(new Set([left[0]!.id]));
  });

  test('duplicates left by an earlier race are removed on the next run', async () => {
    const oldest = standin.seed(PR, `${marker('devpkg')}\nold`, 'github-actions[bot]');
    const dup = standin.seed(PR, `${marker('devpkg')}\nold too`, 'github-actions[bot]');
    const out = await upsertStickyComment(octokit, { owner: 'example', repo: 'tce', issueNumber: PR, header: 'devpkg' }, 'new');
    expect(out).toMatchObject({ action: 'updated', id: oldest.id, deleted: [dup.id] });
    expect(standin.commentsOn(PR).map((c) => c.body)).toEqual([`${marker('devpkg')}\nnew`]);
  });

  test('more than 100 comments: the marker comment on page 2 is found', async () => {
    for (let i = 0; i < 120; i++) standin.seed(PR, `comment ${i}`);
    const ours = standin.seed(PR, `${marker('devpkg')}\nprevious report`, 'github-actions[bot]');
    for (let i = 0; i < 30; i++) standin.seed(PR, `later comment ${i}`);
    const out = await upsertStickyComment(octokit, { owner: 'example', repo: 'tce', issueNumber: PR, header: 'devpkg' }, 'updated');
    expect(out).toMatchObject({ action: 'updated', id: ours.id });
    expect(standin.count('GET', /\/comments\?.*page=2/)).toBe(1);
    expect(standin.count('POST', /\/comments$/)).toBe(0);
    expect(standin.commentsOn(PR)).toHaveLength(151);
    expect(standin.comments.get(ours.id)!.body).toBe(`${marker('devpkg')}\nupdated`);
  });

  test('a server error is retried (retry plugin)', async () => {
    standin.failNext.push(502);
    const out = await upsertStickyComment(octokit, { owner: 'example', repo: 'tce', issueNumber: PR, header: 'devpkg' }, 'report');
    expect(out.action).toBe('created');
    // The failed list, its retry, the create, and the list after creating.
    expect(standin.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'POST', 'GET']);
  });

  test('a quoted marker further down a comment is not ours', async () => {
    standin.seed(PR, `> see\n${marker('devpkg')}`, 'reviewer');
    const out = await upsertStickyComment(octokit, { owner: 'example', repo: 'tce', issueNumber: PR, header: 'devpkg' }, 'report');
    expect(out.action).toBe('created');
  });
});

describe('publishReport', () => {
  test('outputs, summary, results folder and comment', async () => {
    const diag = join(dir, 'diag-src');
    await mkdir(diag, { recursive: true });
    await writeFile(join(diag, 'pkgi.yaml'), 'status: {}\n');
    const lost = { ...lostBootstrap(), diagnostics: { dir: diag, excerpt: 'status: {}' } };
    const results: PlannedPackage[] = [wonKind(), lost];
    const c = ctx({ mode: 'bootstrap' });
    c.env.GITHUB_ACTION = 'devpkg';
    const out = await publishReport({ results, ctx: c, octokit, now: () => new Date('2026-11-30T00:00:00Z') });

    expect(out.result).toBe('failure');
    expect(c.host.outputs.result).toBe('failure');
    // The results output names the lasting copy of the diagnostics (the source is often a temp
    // folder removed at exit), as an absolute path in the results folder.
    const output = JSON.parse(c.host.outputs.results!) as PlannedPackage[];
    expect(output).toHaveLength(2);
    expect(output[1]!.diagnostics?.dir).toBe(join(dir, 'devpkg-devpkg-results', 'diagnostics', 'antrea-1.5.3'));
    expect(c.host.summaries).toEqual([out.markdown]);

    // The results folder is the `results-dir` output the workflow uploads with
    // actions/upload-artifact: results.json, report.md and the copied diagnostics under one root.
    expect(out.resultsDir).toBe(join(dir, 'devpkg-devpkg-results'));
    expect(c.host.outputs['results-dir']).toBe(out.resultsDir);
    expect((await listFiles(out.resultsDir)).map((f) => f.slice(out.resultsDir.length + 1))).toEqual([
      'diagnostics/antrea-1.5.3/pkgi.yaml',
      'report.md',
      'results.json',
    ]);
    expect(out.files).toEqual(await listFiles(out.resultsDir));
    const doc = JSON.parse(await readFile(join(out.resultsDir, 'results.json'), 'utf8'));
    expect(doc).toMatchObject({ schema: 'devpkg.results/v1', repository: 'example/tce', prNumber: PR, runId: '42', result: 'failure' });
    expect(doc.results[1].diagnostics.dir).toBe('diagnostics/antrea-1.5.3');
    expect(await readFile(join(out.resultsDir, 'report.md'), 'utf8')).toBe(out.markdown);
    // One line that says where the folder is and how to upload it, naming this step's id.
    expect(c.host.logs.filter((l) => l.startsWith('results in '))).toEqual([
      `results in ${out.resultsDir} (upload it with actions/upload-artifact: path: \${{ steps.devpkg.outputs.results-dir }})`,
    ]);
    expect(c.host.warnings).toEqual([]);

    // The comment links the artifact by name on the run's page and is the summary behind the marker.
    const comments = standin.commentsOn(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toBe(`${marker('devpkg')}\n${out.markdown}`);
    expect(out.markdown).toContain('[artifact devpkg-results](https://github.example/example/tce/actions/runs/42#artifacts)');
    expect(out.comment).toMatchObject({ action: 'created' });
  });

  test('a cancelled run (the signal aborted) keeps its report but posts nothing', async () => {
    const c = ctx();
    const cancel = new AbortController();
    cancel.abort();
    const out = await publishReport({ results: [wonKind()], ctx: { ...c, signal: cancel.signal }, octokit });
    expect(out.commentSkipped).toBe('the run was cancelled');
    expect(out.comment).toBeUndefined();
    expect(standin.requests).toEqual([]);
    expect(c.host.summaries).toEqual([out.markdown]);
    expect(out.files.length).toBeGreaterThan(0);
    expect(c.host.logs).toContain('the run was cancelled: no pull request comment (a newer run may own it); the report is in the job summary and the results folder');
  });

  test('a step without an id: the log line shows where the id goes', async () => {
    const c = ctx({ comment: false });
    c.env.GITHUB_ACTION = '__devpkg_devpkg';
    const out = await publishReport({ results: [wonKind()], ctx: c });
    expect(c.host.logs).toContain(`results in ${out.resultsDir} (upload it with actions/upload-artifact: path: \${{ steps.<id>.outputs.results-dir }})`);
  });

  test.each([
    ['devpkg', 'steps.devpkg'],
    ['verify_kind-2', 'steps.verify_kind-2'],
    ['__self', 'steps.<id>'], // `uses: ./` without an id
    ['__devpkg_devpkg_2', 'steps.<id>'],
    ['', 'steps.<id>'],
    [undefined, 'steps.<id>'],
  ])('stepRef(GITHUB_ACTION=%p) is %p', (id, want) => {
    expect(stepRef(id === undefined ? {} : { GITHUB_ACTION: id })).toBe(want);
  });

  test('a results folder that cannot be written: a warning, no results-dir output, the report still goes out', async () => {
    // A file where the folder's parent should be.
    await writeFile(join(dir, 'occupied'), 'x');
    const c = ctx();
    const out = await publishReport({ results: [wonKind()], ctx: c, octokit, resultsDir: join(dir, 'occupied', 'results') });
    expect(out.files).toEqual([]);
    expect(c.host.outputs['results-dir']).toBeUndefined();
    expect(c.host.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/^cannot write the results folder .*occupied\/results: /)]);
    expect(c.host.summaries).toHaveLength(1);
    expect(standin.commentsOn(PR)).toHaveLength(1);
  });

  test('plan mode posts its plan too', async () => {
    const c = ctx({ mode: 'plan' });
    const out = await publishReport({ results: [planned()], ctx: c, octokit });
    expect(out.result).toBe('success');
    expect(standin.commentsOn(PR)[0]!.body).toContain('1 package version planned (nothing pushed or applied)');
  });

  test('a 403 (fork pull request) is a warning; the summary has the report and nothing throws', async () => {
    standin.forbidden.add('create');
    const c = ctx();
    const out = await publishReport({ results: [wonKind()], ctx: c, octokit });
    expect(out.commentSkipped).toBe('forbidden');
    expect(out.result).toBe('success');
    expect(c.host.outputs.result).toBe('success');
    expect(c.host.summaries).toHaveLength(1);
    expect(c.host.summaries[0]).toContain('<summary>✅ <b>antrea 1.5.3</b>: won</summary>');
    expect(c.host.warnings.map((w) => w.message).join('\n')).toMatch(/403 .*Resource not accessible by integration.*workflow_run/s);
    expect(c.host.errors).toEqual([]);
    expect(standin.comments.size).toBe(0);
  });

  test('an oversized report is trimmed below the limit and still posted', async () => {
    const results = Array.from({ length: 12 }, (_, i) => {
      const r = reconcileFailed(`pkg${i}`, `1.0.${i}`);
      r.diagnostics!.excerpt = 'kapp: Error: something long\n'.repeat(1500);
      return r;
    });
    const c = ctx();
    const out = await publishReport({ results, ctx: c, octokit });
    expect(out.trimmed.length).toBe(1);
    const body = standin.commentsOn(PR)[0]!.body;
    expect(body.length).toBeLessThanOrEqual(65536);
    expect(body).toContain('This report was shortened');
    expect(c.host.warnings.some((w) => w.message.startsWith('the report was shortened'))).toBe(true);
  });

  test('the default client follows GITHUB_API_URL (GitHub Enterprise Server /api/v3)', async () => {
    const c = ctx({}, { apiUrl: `${standin.url}/api/v3` });
    const out = await publishReport({ results: [wonKind()], ctx: c });
    expect(out.comment?.action).toBe('created');
    expect(standin.requests.every((r) => r.path.startsWith('/api/v3/repos/example/tce/'))).toBe(true);
  });

  test('not a pull request, or comment: false: no comment, still the summary', async () => {
    const push = ctx({}, { eventName: 'push', prNumber: undefined });
    expect((await publishReport({ results: [wonKind()], ctx: push, octokit })).commentSkipped).toBe('not a pull request');
    const off = ctx({ comment: false });
    await publishReport({ results: [wonKind()], ctx: off, octokit });
    expect(standin.requests).toEqual([]);
    expect(push.host.summaries).toHaveLength(1);
    expect(off.host.summaries).toHaveLength(1);
  });
});

// Every example workflow (examples/workflows/) in a consumer repository made from
// examples/tce-packages, executed by act as a user's runner would: pull requests that change one
// package version, only documentation, and remove a version; a manual dispatch; the fork-safe
// pair through workflow_run. The modes that need no cluster run here; the kind-mode runs of a
// changed package are in kind.test.ts (on the kind harness), devpkg-bootstrap.yml in
// bootstrap.test.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { marker } from '../../src/report/comment.js';
import { expectSuccess as ok, jobOf as job, jobResults as results } from './helpers/act.js';
import { artifactsOf, checkout, makeConsumer, makeWorld, PR, pullRequestEvent, readArtifactFile, runIn, workflowRunEvent, type Consumer, type World } from './helpers/world.js';

const T = 600_000;
const REPO = 'example/tce';
let w: World;
let c: Consumer;

beforeAll(async () => {
  w = await makeWorld('example', 'tce', 'devpkg-wf-examples-');
  c = makeConsumer(w);
}, T);
afterAll(async () => {
  await w?.close();
});

const names = (json: string | undefined) => (JSON.parse(json ?? '[]') as Array<{ name: string; version: string }>).map((p) => `${p.name}/${p.version}`);

describe('devpkg-plan.yml (the action, plan mode)', () => {
  const WF = '.github/workflows/devpkg-plan.yml';
  let firstComment = 0;

  test('a pull request changing one package version: the plan as a sticky comment, outputs and the artifact', async () => {
    checkout(c, 'one-package');
    const id = w.nextRunId();
    const run = await runIn(w, c.dir, WF, 'pull_request', pullRequestEvent(c, 'one-package'), { runId: id });
    ok(run);
    expect(results(run)).toEqual({ plan: 'success' });
    const o = job(run, 'plan').outputs;
    expect(names(o.packages)).toEqual(['antrea/1.5.3']);
    expect(o.result).toBe('success');
    expect(JSON.parse(o.results!).map((r: { verdict: string }) => r.verdict)).toEqual(['planned']);
    expect(o['results-dir']).toBeTruthy();
    const art = artifactsOf(w, REPO, id);
    expect(Object.keys(art)).toEqual(['devpkg-plan']);
    expect(art['devpkg-plan']).toEqual(expect.arrayContaining(['report.md', 'results.json']));
    expect(JSON.parse(readArtifactFile(w, REPO, id, 'devpkg-plan', 'results.json')).results[0].name).toBe('antrea');
    const comments = w.standin.commentsOn(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.startsWith(marker('plan'))).toBe(true);
    expect(comments[0]!.body).toContain('antrea');
    expect(comments[0]!.body).toContain(`ghcr.io/example/devpkg/antrea-bundle:1.5.4-dev.${id}.1`);
    firstComment = comments[0]!.id;
    expect(run.text).not.toMatch(/::(warning|error|notice) ::/);
  }, T);

  test('the next push: the comment is updated in place', async () => {
    const id = w.nextRunId();
    const run = await runIn(w, c.dir, WF, 'pull_request', pullRequestEvent(c, 'one-package'), { runId: id });
    ok(run);
    const comments = w.standin.commentsOn(PR);
    expect(comments.map((x) => x.id)).toEqual([firstComment]);
    expect(comments[0]!.body).toContain(`1.5.4-dev.${id}.1`);
  }, T);

  test('a pull request changing only documentation: nothing in play, said in the same comment', async () => {
    checkout(c, 'docs-only');
    const id = w.nextRunId();
    const run = await runIn(w, c.dir, WF, 'pull_request', pullRequestEvent(c, 'docs-only'), { runId: id });
    ok(run);
    const o = job(run, 'plan').outputs;
    expect(names(o.packages)).toEqual([]);
    expect(o.result).toBe('skipped');
    const comments = w.standin.commentsOn(PR);
    expect(comments.map((x) => x.id)).toEqual([firstComment]);
    expect(comments[0]!.body).not.toContain('1.5.4-dev.');
  }, T);

  test('a pull request removing a version: reported as removed, not tested', async () => {
    checkout(c, 'removed-version');
    const run = await runIn(w, c.dir, WF, 'pull_request', pullRequestEvent(c, 'removed-version'));
    ok(run);
    const o = job(run, 'plan').outputs;
    expect(names(o.packages)).toEqual([]);
    expect(names(o.removed)).toEqual(['calico/3.22.1']);
    // The comment says there is nothing to check; it does not name the removed version (the
    // removed output does).
    expect(w.standin.commentsOn(PR)[0]!.body).toContain('no package versions to check');
  }, T);
});

describe('devpkg-dispatch.yml (the reusable workflow, by hand)', () => {
  test('workflow_dispatch with two package versions in plan mode: a leg each, a report, no comment', async () => {
    checkout(c, 'main');
    const before = w.standin.requests.length;
    const id = w.nextRunId();
    const inputs = { packages: 'antrea/1.5.3,calico/3.22.1', mode: 'plan' };
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-dispatch.yml', 'workflow_dispatch', { inputs }, { runId: id, inputs });
    ok(run);
    expect(results(run)).toEqual({ source: 'success', detect: 'success', 'verify antrea/1.5.3-1': 'success', 'verify calico/3.22.1-2': 'success', report: 'success' });
    expect(names(job(run, 'detect').outputs.packages)).toEqual(['antrea/1.5.3', 'calico/3.22.1']);
    expect(job(run, 'report').outputs.result).toBe('success');
    expect(Object.keys(artifactsOf(w, REPO, id)).sort()).toEqual(['devpkg-results-manual-antrea-1.5.3', 'devpkg-results-manual-calico-3.22.1']);
    expect(w.standin.requests.slice(before)).toEqual([]);
  }, T);
});

describe('devpkg-pr.yml and devpkg-kind.yml (kind mode) on pull requests with no package version in play', () => {
  test('devpkg-pr.yml, documentation only: detect finds nothing, no leg, no report, no cluster', async () => {
    checkout(c, 'docs-only');
    const before = w.standin.requests.length;
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-pr.yml', 'pull_request', pullRequestEvent(c, 'docs-only'));
    ok(run);
    expect(names(job(run, 'detect').outputs.packages)).toEqual([]);
    expect(results(run)).toEqual({ source: 'success', detect: 'success' });
    expect(w.standin.requests.slice(before)).toEqual([]);
  }, T);

  test('devpkg-kind.yml, a removed version: skipped, no cluster', async () => {
    checkout(c, 'removed-version');
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-kind.yml', 'pull_request', pullRequestEvent(c, 'removed-version'));
    ok(run);
    const o = job(run, 'verify').outputs;
    expect(o.result).toBe('skipped');
    expect(run.text).toContain('devpkg said skipped');
  }, T);
});

describe('the fork-safe pair: devpkg-fork-pr.yml, then devpkg-fork-report.yml through workflow_run', () => {
  test('a fork pull request uploads its results without commenting; the workflow_run job posts them', async () => {
    checkout(c, 'docs-only');
    w.standin.comments.clear();
    w.standin.pulls.set(PR, { headSha: c.heads['docs-only']! });
    const prRun = w.nextRunId();
    const first = await runIn(w, c.dir, '.github/workflows/devpkg-fork-pr.yml', 'pull_request', pullRequestEvent(c, 'docs-only', true), { runId: prRun });
    ok(first);
    expect(results(first)).toEqual({ verify: 'success' });
    expect(Object.keys(artifactsOf(w, REPO, prRun))).toEqual(['devpkg-results']);
    expect(w.standin.commentsOn(PR)).toEqual([]);

    checkout(c, 'main');
    const second = await runIn(w, c.dir, '.github/workflows/devpkg-fork-report.yml', 'workflow_run', workflowRunEvent(c, 'docs-only', prRun, 'devpkg', 'success'));
    ok(second);
    expect(results(second)).toEqual({ report: 'success' });
    const comments = w.standin.commentsOn(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.startsWith(marker('devpkg'))).toBe(true);
  }, T);

  test('the pull request moved on since the fork run: no comment, and a warning the runner reads as one', async () => {
    checkout(c, 'docs-only');
    w.standin.comments.clear();
    w.standin.pulls.set(PR, { headSha: c.heads['one-package']! });
    const prRun = w.nextRunId();
    ok(await runIn(w, c.dir, '.github/workflows/devpkg-fork-pr.yml', 'pull_request', pullRequestEvent(c, 'docs-only', true), { runId: prRun }));
    checkout(c, 'main');
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-fork-report.yml', 'workflow_run', workflowRunEvent(c, 'docs-only', prRun, 'devpkg', 'success'));
    ok(run);
    expect(w.standin.commentsOn(PR)).toEqual([]);
    // `::warning::message`: with a space (`::warning ::`) act and other readers show plain text.
    expect(job(run, 'report').annotations).toEqual([expect.stringMatching(/^\S*\s*::warning::the results name pull request #7, whose head is [0-9a-f]{12}, but the run that made them tested [0-9a-f]{12}: no comment$/)]);
  }, T);

  // Not run when written (it needs the kind engine's tier): the unit tier has the case in process (test/unit/report-mode.test.ts).
  test("a forged artifact that does not parse: an error comment replaces the last one, found through the run's head", async () => {
    checkout(c, 'docs-only');
    w.standin.comments.clear();
    w.standin.seed(PR, `${marker('devpkg')}\n## ✅ yesterday`, 'github-actions[bot]');
    w.standin.pulls.set(PR, { headSha: c.heads['docs-only']!, head: 'contributor:docs-only' });
    const prRun = w.nextRunId();
    ok(await runIn(w, c.dir, '.github/workflows/devpkg-fork-pr.yml', 'pull_request', pullRequestEvent(c, 'docs-only', true), { runId: prRun }));
    writeFileSync(join(w.artifacts, REPO, String(prRun), 'devpkg-results', 'results.json'), '{"schema": "devpkg.results/v1", \u001b[31m::set-output name=result::success');
    checkout(c, 'main');
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-fork-report.yml', 'workflow_run', workflowRunEvent(c, 'docs-only', prRun, 'devpkg', 'success'));
    ok(run);
    const [comment, ...rest] = w.standin.commentsOn(PR);
    expect(rest).toEqual([]);
    expect(comment!.body).toContain('devpkg: 1 results file could not be read');
    expect(comment!.body).toContain('`devpkg-results/results.json`: not JSON');
    expect(comment!.body).not.toContain('yesterday');
  }, T);
});

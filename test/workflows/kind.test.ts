// Kind mode as a runner runs it: e2e-kind.yml (in devpkg's repository, `uses: ./`) and the
// devpkg-kind.yml example (in a consumer repository, `uses: OWNER/devpkg@<sha>`) executed by act
// on the kind harness (test/harness/kind.sh: a private dockerd with the node, registry and
// kapp-controller images made on this machine). The machine's pieces come in through the inputs
// users on a mirror set: kind-node-image, kind-config, registry-image, kapp-controller-manifest
// (added to the workflow's devpkg step here; e2e-kind.yml's kapp-controller-version gives way
// to the manifest, as devpkg takes one of them). The action's `post` step, run by act, must
// leave no cluster and no registry container; a cancelled run must post nothing and leave nothing.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { kindHarnessForFile, type KindHarness } from '../integration/helpers/kind.js';
import { marker } from '../../src/report/comment.js';
import { DEVPKG_REPOSITORY, expectSuccess, jobOf, jobResults } from './helpers/act.js';
import * as machine from './helpers/kind.js';
import { artifactsOf, checkout, makeConsumer, makeWorld, PR, pullRequestEvent, runIn, type Consumer, type World } from './helpers/world.js';

const T = 1_800_000;
let kh: KindHarness;
let release: (() => Promise<void>) | undefined;
const withMachineInputs = (text: string, anchor: RegExp) => machine.withMachineInputs(kh, text, anchor);
const kindEnv = (w: World) => machine.kindEnv(kh, w);
// Kind mode's names here: its cluster `devpkg-<run id><nonce>-<attempt>` (a world's run ids are
// numbers), the cluster's nodes and its registry `<cluster>-registry`. The engine is shared with
// bootstrap.test.ts (`devpkg-wfb-mgmt*`, `devpkg-registry-<run id>`); the tier checks it whole.
const OWN = /^devpkg-[0-9]/;
const leftovers = () => machine.leftovers(kh, OWN);

beforeAll(async () => {
  ({ kh, release } = await kindHarnessForFile());
  expect(leftovers()).toEqual({ clusters: [], containers: [] });
}, T);
afterAll(async () => {
  await release?.();
}, T);

describe('e2e-kind.yml, job kind', () => {
  let w: World;
  beforeAll(async () => {
    w = await makeWorld('owner', 'devpkg', 'devpkg-wf-e2e-kind-', (dir) => {
      const file = join(dir, '.github', 'workflows', 'e2e-kind.yml');
      const text = readFileSync(file, 'utf8').replace(/^ *kapp-controller-version: v0\.51\.0\n/m, '');
      writeFileSync(file, withMachineInputs(text, /^ *mode: kind$/m));
    });
  }, T);
  afterAll(async () => {
    await w?.close();
  });

  test('the dev version wins, the assertion holds, the results are uploaded, and the post step leaves nothing', async () => {
    const id = w.nextRunId();
    const run = await runIn(w, w.devpkgDir, '.github/workflows/e2e-kind.yml', 'workflow_dispatch', { inputs: {} }, { runId: id, job: 'kind', ...kindEnv(w), timeoutMs: T });
    expectSuccess(run);
    expect(jobResults(run)).toEqual({ kind: 'success' });
    const o = jobOf(run, 'kind').outputs;
    expect(o.result).toBe('success');
    expect(JSON.parse(o.results!).map((r: { name: string; verdict: string }) => `${r.name} ${r.verdict}`)).toEqual(['antrea won']);
    expect(run.text).toContain('antrea/1.5.3: won');
    expect(Object.keys(artifactsOf(w, 'owner/devpkg', id))).toEqual(['devpkg-e2e-kind']);
    expect(run.log.some((e) => String(e.msg ?? '').includes('Success - Post devpkg (kind mode)'))).toBe(true);
    expect(leftovers()).toEqual({ clusters: [], containers: [] });
  }, T);
});

describe('examples/workflows/devpkg-kind.yml and devpkg-pr.yml on a pull request changing antrea', () => {
  let w: World;
  let c: Consumer;
  beforeAll(async () => {
    w = await makeWorld('example', 'tce', 'devpkg-wf-kind-');
    c = makeConsumer(w, (name, text) => (['devpkg-kind.yml', 'devpkg-pr.yml'].includes(name) ? withMachineInputs(text, /^ *mode: kind$/m) : text));
    checkout(c, 'one-package');
  }, T);
  afterAll(async () => {
    await w?.close();
  });

  test('the dev version wins; the sticky comment, outputs and artifact are there; nothing is left', async () => {
    const id = w.nextRunId();
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-kind.yml', 'pull_request', pullRequestEvent(c, 'one-package'), { runId: id, ...kindEnv(w), timeoutMs: T });
    expectSuccess(run);
    expect(jobResults(run)).toEqual({ verify: 'success' });
    const o = jobOf(run, 'verify').outputs;
    expect(o.result).toBe('success');
    expect(JSON.parse(o.verdicts!)).toEqual({ 'antrea/1.5.3': 'won' });
    expect(run.text).toContain('devpkg said success');
    expect(artifactsOf(w, 'example/tce', id)['devpkg-results']).toEqual(expect.arrayContaining(['report.md', 'results.json']));
    const comments = w.standin.commentsOn(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.startsWith(marker('devpkg'))).toBe(true);
    expect(comments[0]!.body).toContain('won');
    expect(leftovers()).toEqual({ clusters: [], containers: [] });
  }, T);

  test('devpkg-pr.yml (the reusable workflow): detect, a kind leg, one report comment; nothing is left', async () => {
    w.standin.comments.clear();
    const id = w.nextRunId();
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-pr.yml', 'pull_request', pullRequestEvent(c, 'one-package'), { runId: id, ...kindEnv(w), timeoutMs: T });
    expectSuccess(run);
    // act names a matrix of one leg without the -N suffix, and lists the calling job without a result of its own.
    expect(jobResults(run)).toEqual({ devpkg: undefined, source: 'success', detect: 'success', 'verify antrea/1.5.3': 'success', report: 'success' });
    expect(jobOf(run, 'report').outputs.result).toBe('success');
    expect(JSON.parse(jobOf(run, 'report').outputs.results!).map((r: { name: string; verdict: string }) => `${r.name} ${r.verdict}`)).toEqual(['antrea won']);
    expect(Object.keys(artifactsOf(w, 'example/tce', id))).toEqual(['devpkg-results-devpkg-antrea-1.5.3']);
    const comments = w.standin.commentsOn(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('won');
    expect(leftovers()).toEqual({ clusters: [], containers: [] });
  }, T);

  test('cancelled while waiting for the dev version: nothing posted, nothing left', async () => {
    const posted = w.standin.count('POST', /comments$/) + w.standin.count('PATCH', /comments\/\d+$/);
    let interrupted = false;
    // Ctrl+C to act while devpkg waits: act cancels the job, kills the running step (SIGKILL: it
    // sends no SIGINT first, unlike GitHub's runner), skips the !cancelled() steps and runs the
    // always() ones and the action's post step.
    const cancelWhenWaiting = (child: ChildProcess, output: () => string) => {
      const timer = setInterval(() => {
        if (interrupted || !/waiting for \S+-dev\.\S+ to win/.test(output())) return;
        interrupted = true;
        clearInterval(timer);
        process.kill(child.pid!, 'SIGINT');
      }, 500);
      child.on('close', () => clearInterval(timer));
    };
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-kind.yml', 'pull_request', pullRequestEvent(c, 'one-package'), { ...kindEnv(w), timeoutMs: T, onStart: cancelWhenWaiting });
    expect(interrupted).toBe(true);
    expect(run.code).not.toBe(0);
    expect(run.text).toContain('this step has been cancelled');
    expect(run.text).not.toContain('devpkg said');
    expect(run.log.some((e) => String(e.msg ?? '').includes(`Success - Post ${DEVPKG_REPOSITORY}@`))).toBe(true);
    expect(w.standin.count('POST', /comments$/) + w.standin.count('PATCH', /comments\/\d+$/)).toBe(posted);
    expect(leftovers()).toEqual({ clusters: [], containers: [] });
  }, T);
});

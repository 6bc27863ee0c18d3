// The reusable workflow (.github/workflows/devpkg.yml) as a runner runs it: self-test-reusable.yml
// in devpkg's own repository at a commit (detect -> a plan-mode leg per package version -> one
// report -> the check job), executed by act on this machine. Then a consumer's pull request that
// touches 20 package versions (a package repository release) through devpkg-pr.yml: 20 legs, one
// sticky comment holding all 20, updated by the next push. Then two broken variants of the
// reusable workflow that actionlint passes (it cannot see what an action sets, nor what a
// matrix expands to) and this tier fails. Last, a caller that names neither devpkg-repository nor
// devpkg-ref: the clear error without an OIDC token, the token's claims with one (the GitHub
// stand-in plays the runner's token service).
import { marker } from '../../src/report/comment.js';
import { expectSuccess, git, jobOf, jobResults } from './helpers/act.js';
import { artifactsOf, checkout, makeConsumer, makeWorld, PR, pullRequestEvent, readArtifactFile, runIn, type Consumer, type World } from './helpers/world.js';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const T = 600_000;
const SELF_TEST = '.github/workflows/self-test-reusable.yml';
const HEADER = 'self-test-reusable';
const LEGS = ['devpkg-results-self-test-reusable-antrea-1.5.3', 'devpkg-results-self-test-reusable-calico-3.22.1'];
const names = (json: string | undefined) => (JSON.parse(json ?? '[]') as Array<{ name: string; version: string }>).map((p) => `${p.name}/${p.version}`);

/** A pull_request event of devpkg's own PR #7 (same repository), at the world's commit. */
function selfPullRequest(w: World): Record<string, unknown> {
  return {
    action: 'synchronize',
    number: PR,
    pull_request: {
      number: PR,
      head: { ref: 'change', sha: w.devpkgSha, repo: { full_name: 'owner/devpkg', fork: false } },
      base: { ref: 'main', sha: w.devpkgSha, repo: { full_name: 'owner/devpkg', fork: false } },
    },
    repository: { name: 'devpkg', full_name: 'owner/devpkg', owner: { login: 'owner' }, default_branch: 'main' },
  };
}

describe('self-test-reusable.yml through act', () => {
  let w: World;
  beforeAll(async () => {
    w = await makeWorld('owner', 'devpkg', 'devpkg-wf-reusable-');
  }, T);
  afterAll(async () => {
    await w?.close();
  });

  test('first run: detect, one leg per package version, the report and the check succeed; outputs, artifacts and the sticky comment are there', async () => {
    const id = w.nextRunId();
    const run = await runIn(w, w.devpkgDir, SELF_TEST, 'pull_request', selfPullRequest(w), { runId: id });
    expectSuccess(run);
    expect(jobResults(run)).toEqual({
      source: 'success',
      detect: 'success',
      'verify antrea/1.5.3-1': 'success',
      'verify calico/3.22.1-2': 'success',
      report: 'success',
      check: 'success',
    });
    const detect = jobOf(run, 'detect');
    expect(JSON.parse(detect.outputs.packages!).map((p: { name: string; version: string }) => `${p.name}/${p.version}`)).toEqual(['antrea/1.5.3', 'calico/3.22.1']);
    expect(JSON.parse(detect.outputs.matrix!).include.map((m: { package: string }) => m.package)).toEqual(['antrea/1.5.3', 'calico/3.22.1']);
    const report = jobOf(run, 'report');
    expect(report.outputs.result).toBe('success');
    expect(JSON.parse(report.outputs.results!).map((r: { name: string; verdict: string }) => `${r.name} ${r.verdict}`)).toEqual(['antrea planned', 'calico planned']);
    expect(report.outputs['results-dir']).toMatch(/devpkg-report-self-test-reusable$/);
    // Each leg uploaded its results-dir under its own name: results.json and report.md.
    const artifacts = artifactsOf(w, 'owner/devpkg', id);
    expect(Object.keys(artifacts).sort()).toEqual(LEGS);
    for (const leg of LEGS) {
      expect(artifacts[leg]).toEqual(expect.arrayContaining(['report.md', 'results.json']));
      expect(JSON.parse(readArtifactFile(w, 'owner/devpkg', id, leg, 'results.json')).artifactName).toBe(leg);
    }
    // One sticky comment on the pull request, from the report job, naming both versions.
    const comments = w.standin.commentsOn(PR);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body.startsWith(marker(HEADER))).toBe(true);
    expect(comments[0]!.body).toMatch(/antrea[\s\S]*1\.5\.4-dev\.\d+\.1/);
    expect(comments[0]!.body).toMatch(/calico[\s\S]*3\.22\.2-dev\.\d+\.1/);
    expect(comments[0]!.body).toContain(`/actions/runs/${id}`);
    // No annotation printed as `::warning ::` (the space act and other readers show as text).
    expect(run.text).not.toMatch(/::(warning|error|notice) ::/);
  }, T);

  test('second run: the same comment is updated, not duplicated', async () => {
    const first = w.standin.commentsOn(PR)[0]!;
    const id = w.nextRunId();
    const run = await runIn(w, w.devpkgDir, SELF_TEST, 'pull_request', selfPullRequest(w), { runId: id });
    expectSuccess(run);
    const comments = w.standin.commentsOn(PR);
    expect(comments.map((c) => c.id)).toEqual([first.id]);
    expect(comments[0]!.body).toContain(`/actions/runs/${id}`);
    expect(w.standin.count('POST', /\/issues\/\d+\/comments$/)).toBe(1);
    expect(w.standin.count('PATCH', /\/issues\/comments\/\d+$/)).toBeGreaterThanOrEqual(1);
  }, T);
});

/**
 * A package repository release: the consumer gets 18 more packages on main (copies of calico under
 * their own names and refNames), then a branch that touches all 20 package versions at once.
 */
function release20(c: Consumer): string[] {
  const packages = join(c.dir, 'addons', 'packages');
  git(c.dir, 'checkout', '-q', 'main');
  const more = Array.from({ length: 18 }, (_, i) => `pkg${String(i + 3).padStart(2, '0')}`);
  for (const name of more) {
    cpSync(join(packages, 'calico'), join(packages, name), { recursive: true });
    for (const f of ['metadata.yaml', '3.22.1/package.yaml']) {
      const file = join(packages, name, f);
      writeFileSync(file, readFileSync(file, 'utf8').replaceAll('calico.community.tanzu.vmware.com', `${name}.community.tanzu.vmware.com`));
    }
  }
  git(c.dir, 'add', '-A');
  git(c.dir, 'commit', '-qm', 'eighteen more packages, released');
  c.base = git(c.dir, 'rev-parse', 'HEAD');
  git(c.dir, 'checkout', '-q', '-b', 'release-20');
  const all = [['antrea', '1.5.3'], ['calico', '3.22.1'], ...more.map((n) => [n, '3.22.1'])];
  for (const [name, version] of all) {
    const values = join(packages, name!, version!, 'bundle', 'config', 'values.yaml');
    writeFileSync(values, `${readFileSync(values, 'utf8')}# the 2026.12 release\n`);
  }
  git(c.dir, 'commit', '-qam', 'release 2026.12: every package');
  c.heads['release-20'] = git(c.dir, 'rev-parse', 'HEAD');
  return all.map(([n, v]) => `${n}/${v}`);
}

describe('a pull request touching 20 package versions (a package repository release): devpkg-pr.yml, one leg each, one comment', () => {
  // The legs run in plan mode: in kind mode each leg makes its own kind cluster, 20 clusters on
  // one machine (kind mode's own 20-package run, in one cluster, is bench/kind.bench.mjs
  // --packages). act runs at most as many jobs at once as there are CPUs (--concurrent-jobs;
  // it does not evaluate max-parallel: ${{ }}), two here: the legs queue, the run takes minutes.
  const LONG = 1_500_000;
  let w: World;
  let c: Consumer;
  let want: string[];
  const WF = '.github/workflows/devpkg-pr.yml';
  const runRelease = (id: number) => runIn(w, c.dir, WF, 'pull_request', pullRequestEvent(c, 'release-20'), { runId: id, timeoutMs: LONG - 60_000 });
  /** The summary table's rows: `| name | `version` | 📝 planned | ...`. */
  const rowsOf = (body: string) => body.split('\n').filter((l) => /^\| [\w-]+ \| `[\d.]+` \| 📝 planned \|/.test(l)).map((l) => l.split(' | ').slice(0, 2).join('/').replace(/^\| /, '').replace(/`/g, ''));
  beforeAll(async () => {
    w = await makeWorld('example', 'tce', 'devpkg-wf-release20-');
    c = makeConsumer(w, (name, text) => {
      if (name !== 'devpkg-pr.yml') return text;
      const out = text.replace('      mode: kind\n', '      mode: plan\n      registry: ghcr.io/example/devpkg\n');
      if (out === text) throw new Error('the edit of devpkg-pr.yml did not apply');
      return out;
    });
    want = release20(c);
  }, T);
  afterAll(async () => {
    await w?.close();
  });

  test('20 legs, each one result; one sticky comment whose summary table has all 20', async () => {
    const id = w.nextRunId();
    const run = await runRelease(id);
    expectSuccess(run);
    const results = jobResults(run);
    const legs = Object.keys(results).filter((k) => k.startsWith('verify '));
    expect(legs).toHaveLength(20);
    expect(legs.every((k) => results[k] === 'success')).toBe(true);
    expect(legs.map((k) => k.replace(/^verify /, '').replace(/-\d+$/, '')).sort()).toEqual([...want].sort());
    expect(results.report).toBe('success');
    expect(names(jobOf(run, 'detect').outputs.packages)).toEqual(want);
    const report = jobOf(run, 'report');
    expect(report.outputs.result).toBe('success');
    expect(JSON.parse(report.outputs.results!).map((r: { name: string; version: string; verdict: string }) => `${r.name}/${r.version} ${r.verdict}`).sort()).toEqual(want.map((p) => `${p} planned`).sort());
    expect(Object.keys(artifactsOf(w, 'example/tce', id))).toHaveLength(20);
    const comments = w.standin.commentsOn(PR);
    expect(comments).toHaveLength(1);
    const body = comments[0]!.body;
    expect(body.startsWith(`${marker('devpkg')}\n## 📝 devpkg · plan: 20 package versions planned`)).toBe(true);
    expect(rowsOf(body).sort()).toEqual([...want].sort());
    // Each package version's details, folded.
    expect(body.match(/^<details><summary>📝 <b>[\w-]+ [\d.]+<\/b>: planned<\/summary>$/gm)).toHaveLength(20);
    expect(body.length).toBeLessThanOrEqual(65536);
    expect(body).toContain(`/actions/runs/${id}`);
  }, LONG);

  test('the next push: the same comment updated with all 20, not a second one', async () => {
    const first = w.standin.commentsOn(PR)[0]!;
    const id = w.nextRunId();
    const run = await runRelease(id);
    expectSuccess(run);
    expect(Object.keys(jobResults(run)).filter((k) => k.startsWith('verify '))).toHaveLength(20);
    const comments = w.standin.commentsOn(PR);
    expect(comments.map((c) => c.id)).toEqual([first.id]);
    expect(comments[0]!.body).toContain(`/actions/runs/${id}`);
    expect(comments[0]!.body).not.toContain(`/actions/runs/${id - 1})`);
    expect(rowsOf(comments[0]!.body).sort()).toEqual([...want].sort());
    expect(w.standin.count('POST', /\/issues\/\d+\/comments$/)).toBe(1);
  }, LONG);
});

/** Edits .github/workflows/devpkg.yml of the devpkg repository under test. */
function editReusable(edit: (text: string) => string): (dir: string) => void {
  return (dir) => {
    const file = join(dir, '.github', 'workflows', 'devpkg.yml');
    const before = readFileSync(file, 'utf8');
    const after = edit(before);
    if (after === before) throw new Error('the edit changed nothing in devpkg.yml');
    writeFileSync(file, after);
  };
}

describe('broken reusable workflows that actionlint passes fail this tier', () => {
  test('the report job maps its result output from a step output the action does not set', async () => {
    // `verdict` is not an output of action.yml (it sets result and verdicts): on GitHub the
    // workflow's result output is then empty, and callers reading it see nothing.
    const w = await makeWorld('owner', 'devpkg', 'devpkg-wf-broken-output-', editReusable((t) => t.replace('result: ${{ steps.report.outputs.result }}', 'result: ${{ steps.report.outputs.verdict }}')));
    try {
      const run = await runIn(w, w.devpkgDir, SELF_TEST, 'workflow_dispatch', { inputs: {} });
      expect(run.code).not.toBe(0);
      expect(jobResults(run).check).toBe('failure');
      expect(run.text).toContain('result: ');
      expect(run.text).not.toContain('result: success');
    } finally {
      await w.close();
    }
  }, T);

  test('two matrix legs upload artifacts of the same name', async () => {
    // The name no longer carries the leg's package: the second leg's upload replaces the first
    // (overwrite: true), and the report merges one result instead of two.
    const w = await makeWorld('owner', 'devpkg', 'devpkg-wf-broken-artifact-', editReusable((t) => t.replace('ARTIFACT_NAME: devpkg-results-${{ inputs.comment-header }}-${{ matrix.name }}-${{ matrix.version }}', 'ARTIFACT_NAME: devpkg-results-${{ inputs.comment-header }}-leg')));
    try {
      const id = w.nextRunId();
      const run = await runIn(w, w.devpkgDir, SELF_TEST, 'workflow_dispatch', { inputs: {} }, { runId: id });
      expect(run.code).not.toBe(0);
      expect(jobResults(run).check).toBe('failure');
      expect(Object.keys(artifactsOf(w, 'owner/devpkg', id))).toEqual(['devpkg-results-self-test-reusable-leg']);
    } finally {
      await w.close();
    }
  }, T);
});

describe('which devpkg the reusable workflow runs when the caller names neither: devpkg-dispatch.yml without devpkg-repository and devpkg-ref', () => {
  let w: World;
  let c: Consumer;
  const inputs = { packages: 'antrea/1.5.3', mode: 'plan' };
  beforeAll(async () => {
    w = await makeWorld('example', 'tce', 'devpkg-wf-source-');
    c = makeConsumer(w, (name, text) => {
      if (name !== 'devpkg-dispatch.yml') return text;
      const out = text
        .replace(/^ +#[^\n]*\n +#[^\n]*\n +devpkg-repository: [^\n]*\n +devpkg-ref: [^\n]*\n/m, '')
        .replace('    permissions:\n      contents: read\n', '    permissions:\n      contents: read\n      id-token: write\n');
      if (out.includes('devpkg-repository') || !out.includes('id-token: write')) throw new Error('the edit of devpkg-dispatch.yml did not apply');
      return out;
    });
    checkout(c, 'main');
  }, T);
  afterAll(async () => {
    await w?.close();
  });

  test('no OIDC token (id-token not granted): the source job stops with the error naming both inputs; nothing runs devpkg', async () => {
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-dispatch.yml', 'workflow_dispatch', { inputs }, { inputs });
    expect(run.code).not.toBe(0);
    const results = jobResults(run);
    expect(results.source).toBe('failure');
    expect(Object.entries(results).filter(([, r]) => r === 'success')).toEqual([]);
    expect(run.text).toContain('devpkg-repository devpkg-ref not given: a reusable workflow cannot tell its own repository and commit.');
    expect(w.standin.requests).toEqual([]);
  }, T);

  test("with the runner's OIDC token service: the job_workflow_ref and job_workflow_sha claims name devpkg, and the run goes through", async () => {
    // A repository name no input and no default says: only the token names it.
    w.standin.oidcClaims = { job_workflow_ref: 'claimed/devpkg/.github/workflows/devpkg.yml@refs/heads/main', job_workflow_sha: w.devpkgSha, repository: 'example/tce' };
    const run = await runIn(w, c.dir, '.github/workflows/devpkg-dispatch.yml', 'workflow_dispatch', { inputs }, {
      inputs,
      repositories: { 'claimed/devpkg': w.devpkgDir },
      env: { ACTIONS_ID_TOKEN_REQUEST_URL: w.standin.oidcRequestUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: w.standin.oidcRequestToken },
    });
    expectSuccess(run);
    // act names a matrix of one leg without the -N suffix.
    expect(jobResults(run)).toEqual({ source: 'success', detect: 'success', 'verify antrea/1.5.3': 'success', report: 'success' });
    expect(jobOf(run, 'source').outputs).toMatchObject({ repository: 'claimed/devpkg', ref: w.devpkgSha });
    expect(w.standin.requests.filter((r) => r.path.startsWith('/_standin/oidc/'))).toEqual([{ method: 'GET', path: '/_standin/oidc/token?api-version=2.0&audience=devpkg', authorization: `bearer ${w.standin.oidcRequestToken}` }]);
  }, T);
});

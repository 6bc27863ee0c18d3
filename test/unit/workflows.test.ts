// The workflow files (.github/workflows and examples/workflows) against the rules in
// test/support/workflows.ts: nothing that posts or fails the run is conditioned on always(), every
// job has a timeout that fits what devpkg does inside it, and the reusable workflow's shape (the
// report job's permissions, bootstrap refused). Each rule is first shown to catch a bad workflow.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { jobBudget } from '../../src/pipeline/budget.js';
import { parseDuration } from '../../src/commands/io.js';
import { defaultOf } from '../../src/config/schema.js';
import { GitHubStandin } from '../support/github-standin.js';
import { alwaysFindings, budgetFindings, timeoutFindings, type Workflow } from '../support/workflows.js';

const files = ['.github/workflows', 'examples/workflows'].flatMap((dir) =>
  readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => `${dir}/${f}`),
);
const load = (file: string) => parse(readFileSync(file, 'utf8')) as Workflow;
const action = parse(readFileSync('action.yml', 'utf8')) as { inputs: Record<string, { default?: string }> };
// The defaults devpkg applies: action.yml's (mode) or, for the settings, src/config/schema.ts's.
const defaults = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, String(v.default ?? '') || defaultOf(k)]));

describe('the rules catch what they are for', () => {
  const wf = (yaml: string) => parse(yaml) as Workflow;
  test.each([
    ['a report job on always()', 'jobs:\n  report:\n    if: always() && needs.a.result == "success"\n    steps: [{run: exit 1}]', ['job report: if uses always(); use !cancelled()']],
    ['a reusable-workflow call on always()', 'jobs:\n  devpkg:\n    if: ${{ always() }}\n    uses: OWNER/devpkg/.github/workflows/devpkg.yml@abc', ['job devpkg: if uses always(); use !cancelled()']],
    ['a devpkg step on always()', 'jobs:\n  a:\n    steps:\n      - {id: devpkg, uses: ./, if: always()}', ['job a, step devpkg: if uses always() on a step that posts or fails the run; use !cancelled()']],
    ['a check step on always()', 'jobs:\n  a:\n    steps:\n      - {name: Check the verdict, run: test won = won, if: always()}', ['job a, step Check the verdict: if uses always() on a step that posts or fails the run; use !cancelled()']],
    ['!cancelled()', 'jobs:\n  report:\n    if: ${{ !cancelled() }}\n    steps: [{run: exit 1}]', []],
    ['an upload on always()', 'jobs:\n  a:\n    steps:\n      - {uses: actions/upload-artifact@0123, if: always()}', []],
    ['a cleanup step on always()', 'jobs:\n  a:\n    steps:\n      - {name: Remove the registry, run: docker rm -f r, if: always()}', []],
  ])('always(): %s', (_what, yaml, want) => {
    expect(alwaysFindings(wf(yaml))).toEqual(want);
  });

  test.each([
    ['a job without a limit', 'jobs:\n  a:\n    steps: [{run: "true"}]', ['job a: no timeout-minutes']],
    ['a job with one', 'jobs:\n  a:\n    timeout-minutes: 5\n    steps: [{run: "true"}]', []],
    ['a reusable-workflow call (cannot have one)', 'jobs:\n  a:\n    uses: ./.github/workflows/devpkg.yml', []],
  ])('timeout-minutes: %s', (_what, yaml, want) => {
    expect(timeoutFindings(wf(yaml))).toEqual(want);
  });

  test('a bootstrap job shorter than devpkg own limits is caught, a long enough one is not', () => {
    const job = (minutes: number) => wf(`jobs:\n  b:\n    timeout-minutes: ${minutes}\n    steps:\n      - uses: ./\n        with: {mode: bootstrap, bootstrap-timeout: 45m, timeout: 15m, settle: 60s}`);
    // 5 setup + 20 dry-runs + 45 create + 15 phase 3 + 15 verdict + 1 settle + 30 delete.
    expect(jobBudget({ mode: 'bootstrap', timeoutMs: 15 * 60_000, settleMs: 60_000, bootstrapTimeoutMs: 45 * 60_000 }).minutes).toBe(131);
    expect(budgetFindings(job(75), defaults)).toEqual([expect.stringMatching(/^job b: timeout-minutes 75 is less than the 131 minutes devpkg \(bootstrap\)/)]);
    expect(budgetFindings(job(131), defaults)).toEqual([]);
  });

  test('kind mode with the action defaults needs the default timeout and settle twice over, plus the cluster', () => {
    const job = wf('jobs:\n  k:\n    timeout-minutes: 20\n    steps:\n      - {uses: OWNER/devpkg@abc, with: {mode: kind}}');
    // 5 setup + 3 kind + 8 kapp-controller + 10 baseline + 10 dev + 1 settle + 2 cleanup.
    expect(budgetFindings(job, defaults)).toEqual([expect.stringMatching(/^job k: timeout-minutes 20 is less than the 39 minutes devpkg \(kind\)/)]);
  });

  test('with a push command, kind mode also counts push-timeout for the baseline\'s push and the dev bundle\'s', () => {
    const job = (minutes: number) => wf(`jobs:\n  k:\n    timeout-minutes: ${minutes}\n    steps:\n      - {uses: ./, with: {mode: kind, push-command: make push-package, push-timeout: 5m}}`);
    // The 39 minutes above + 2 x 5 push-timeout.
    expect(budgetFindings(job(48), defaults)).toEqual([expect.stringMatching(/^job k: timeout-minutes 48 is less than the 49 minutes devpkg \(kind\) .*push command \(push-timeout\) x2 10m \+ kind cleanup/)]);
    expect(budgetFindings(job(49), defaults)).toEqual([]);
  });

  test('plan mode needs only the set-up margin', () => {
    const job = (minutes: number) => wf(`jobs:\n  p:\n    timeout-minutes: ${minutes}\n    steps:\n      - {uses: ./, with: {mode: plan}}`);
    expect(budgetFindings(job(5), defaults)).toEqual([]);
    expect(budgetFindings(job(4), defaults)).toEqual([expect.stringMatching(/^job p: timeout-minutes 4 is less than the 5 minutes devpkg \(plan\)/)]);
  });
});

describe.each(files)('%s', (file) => {
  const wf = load(file);
  test('nothing that posts or fails the run is conditioned on always()', () => {
    expect(alwaysFindings(wf)).toEqual([]);
  });
  test('every job has a timeout-minutes', () => {
    expect(timeoutFindings(wf)).toEqual([]);
  });
  test("every job's timeout-minutes covers devpkg's own limits inside it", () => {
    expect(budgetFindings(wf, defaults)).toEqual([]);
  });
});

describe('the reusable workflow', () => {
  const wf = load('.github/workflows/devpkg.yml') as Workflow & {
    permissions?: unknown;
    on: { workflow_call: { inputs: Record<string, { default?: unknown; description?: string }> } };
  };
  const inputs = wf.on.workflow_call.inputs;
  const jobs = wf.jobs!;

  test('requests no write permission anywhere, so a caller with comment: false may grant contents: read only', () => {
    // GitHub checks each job's permissions against the caller's grant at start-up, whatever its if: says.
    expect(wf.permissions).toBeUndefined();
    expect(jobs.report!.permissions).toBeUndefined();
    for (const job of Object.values(jobs)) expect(JSON.stringify(job.permissions ?? {})).not.toContain('write');
  });

  test('the report job runs after failed legs but not in a cancelled run', () => {
    expect(String(jobs.report!.if)).toContain('!cancelled()');
  });

  test('refuses mode bootstrap up front, pointing to the example that runs it', () => {
    const check = jobs.detect!.steps![0]!;
    expect(check.name).toBe('Check the mode');
    expect(check.run).toMatch(/bootstrap\)\n\s+echo "::error[^\n]*examples\/workflows\/devpkg-bootstrap\.yml/);
    // The step's script, run as the runner runs it.
    const run = (mode: string) => spawnSync('bash', ['-e', '-c', check.run!], { env: { PATH: process.env.PATH, MODE: mode }, encoding: 'utf8' });
    const refused = run('bootstrap');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/^::error title=devpkg: mode bootstrap does not run in the reusable workflow::.*run the action in a job instead, as examples\/workflows\/devpkg-bootstrap\.yml does$/m);
    expect(run('kind').status).toBe(0);
    expect(run('plan').status).toBe(0);
    expect(run('clusterr')).toMatchObject({ status: 1, stdout: expect.stringContaining('mode "clusterr" is not kind or plan') });
    expect(inputs['tanzu-cli-url']).toBeUndefined();
    expect(files).toContain('examples/workflows/devpkg-bootstrap.yml');
  });

  test('sends registry only in plan mode and credentials nowhere (kind mode refuses registry; no mode here pushes outside)', () => {
    const devpkgSteps = Object.values(jobs)
      .flatMap((j) => j.steps ?? [])
      .filter((st) => st.uses === './.devpkg-action') as Array<{ with?: Record<string, unknown> }>;
    expect(devpkgSteps.filter((st) => st.with?.registry !== undefined)).toHaveLength(2); // detect and verify
    for (const st of devpkgSteps) {
      expect(Object.keys(st.with ?? {})).not.toEqual(expect.arrayContaining(['registry-username']));
      expect(Object.keys(st.with ?? {})).not.toEqual(expect.arrayContaining(['registry-password']));
      if (st.with?.registry !== undefined) expect(st.with.registry).toBe("${{ inputs.mode == 'plan' && inputs.registry || '' }}");
    }
    // The kind inputs real users need on mirrors and air-gapped runners are passed through.
    const verify = jobs.verify!.steps!.find((st) => st.uses === './.devpkg-action') as { with: Record<string, string> };
    for (const k of ['kind-config', 'kind-node-image', 'registry-image', 'kapp-controller-manifest', 'kapp-controller-sha256']) {
      expect(inputs[k]).toBeDefined();
      expect(verify.with[k]).toBe(`\${{ inputs.${k} }}`);
    }
  });

  describe('the source job: which devpkg the jobs run (a reusable workflow cannot tell its own repository and commit)', () => {
    const step = jobs.source!.steps![0]!;
    const SHA = '0123456789abcdef0123456789abcdef01234567';
    let standin: GitHubStandin;
    let dir: string;
    beforeAll(async () => {
      standin = await new GitHubStandin('example', 'tce').start();
      dir = mkdtempSync(join(tmpdir(), 'devpkg-source-'));
    });
    afterAll(async () => {
      await standin?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });
    /** The step's script as the runner runs it (bash -e), with the inputs and the runner's variables given; async, so the stand-in in this process can answer. */
    async function run(inputs: { repository?: string; ref?: string }, oidc?: { token?: string }): Promise<{ code: number; stdout: string; outputs: string }> {
      const output = join(dir, `output-${Math.random().toString(36).slice(2)}`);
      writeFileSync(output, '');
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, GITHUB_OUTPUT: output, DEVPKG_REPOSITORY: inputs.repository ?? '', DEVPKG_REF: inputs.ref ?? '' };
      if (oidc) Object.assign(env, { ACTIONS_ID_TOKEN_REQUEST_URL: standin.oidcRequestUrl, ACTIONS_ID_TOKEN_REQUEST_TOKEN: oidc.token ?? standin.oidcRequestToken });
      try {
        const r = await promisify(execFile)('bash', ['-e', '-c', step.run!], { env, encoding: 'utf8' });
        return { code: 0, stdout: r.stdout, outputs: readFileSync(output, 'utf8') };
      } catch (err) {
        const e = err as { code: number; stdout: string };
        return { code: e.code, stdout: e.stdout, outputs: readFileSync(output, 'utf8') };
      }
    }

    test('has no devpkg-repository default naming anyone, and no permissions key (the caller grant, id-token included, reaches it); it runs no action', () => {
      expect(inputs['devpkg-repository']!.default).toBe('');
      expect(inputs['devpkg-ref']!.default).toBe('');
      expect(jobs.source!.permissions).toBeUndefined();
      expect(jobs.source!.steps!.every((st) => st.uses === undefined)).toBe(true);
      // Every checkout of devpkg takes what the source job found.
      const checkouts = Object.values(jobs).flatMap((j) => j.steps ?? []).filter((st) => st.with?.path === '.devpkg-action');
      expect(checkouts).toHaveLength(3);
      for (const st of checkouts) expect(st.with).toMatchObject({ repository: '${{ needs.source.outputs.repository }}', ref: '${{ needs.source.outputs.ref }}' });
    });

    test('the caller names both: they are used, no token asked for', async () => {
      const before = standin.requests.length;
      const r = await run({ repository: 'someone/devpkg', ref: SHA });
      expect(r).toMatchObject({ code: 0, outputs: `repository=someone/devpkg\nref=${SHA}\n` });
      expect(r.stdout).toContain(`devpkg: someone/devpkg at ${SHA} (from inputs)`);
      expect(standin.requests.length).toBe(before);
    });

    test.each([
      ['neither', {}, 'devpkg-repository devpkg-ref not given'],
      ['only the ref', { ref: SHA }, 'devpkg-repository not given'],
      ['only the repository', { repository: 'someone/devpkg' }, 'devpkg-ref not given'],
    ])('%s given and no id-token: a clear error naming what is missing, nothing guessed', async (_what, given, missing) => {
      const r = await run(given);
      expect(r.code).toBe(1);
      expect(r.outputs).toBe('');
      expect(r.stdout.trim()).toBe(
        `::error title=devpkg: which devpkg to run::${missing}: a reusable workflow cannot tell its own repository and commit. Pass devpkg-repository (the OWNER/NAME in your uses: line) and devpkg-ref (its SHA), or grant id-token: write to the calling job so that they are read from the OIDC token`,
      );
    });

    test('id-token granted: the OIDC token names the called workflow (job_workflow_ref) and its commit (job_workflow_sha)', async () => {
      standin.oidcClaims = { job_workflow_ref: 'someone/devpkg-fork/.github/workflows/devpkg.yml@refs/tags/v1', job_workflow_sha: SHA, repository: 'example/tce' };
      const r = await run({}, {});
      expect(r).toMatchObject({ code: 0, outputs: `repository=someone/devpkg-fork\nref=${SHA}\n` });
      expect(standin.requests.at(-1)).toMatchObject({ method: 'GET', path: '/_standin/oidc/token?api-version=2.0&audience=devpkg', authorization: `bearer ${standin.oidcRequestToken}` });
      // Without job_workflow_sha, the ref of job_workflow_ref; what the caller names still wins.
      standin.oidcClaims = { job_workflow_ref: 'someone/devpkg-fork/.github/workflows/devpkg.yml@refs/tags/v1' };
      expect((await run({}, {})).outputs).toBe('repository=someone/devpkg-fork\nref=refs/tags/v1\n');
      expect((await run({ repository: 'mine/devpkg' }, {})).outputs).toBe('repository=mine/devpkg\nref=refs/tags/v1\n');
    });

    test('a token without a workflow claim, or a service that refuses: an error saying to name them', async () => {
      standin.oidcClaims = { repository: 'example/tce' };
      const r = await run({}, {});
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`the OIDC token's job_workflow_ref "" is not OWNER/NAME/.github/workflows/FILE@REF; pass devpkg-repository and devpkg-ref instead`);
      const refused = await run({}, { token: 'wrong' });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toContain("the runner's OIDC token service did not answer (above); pass devpkg-repository and devpkg-ref instead");
      expect(refused.outputs).toBe('');
    });
  });

  test("the verify leg's default limit covers kind mode with the default timeout and settle", () => {
    expect(jobs.verify!['timeout-minutes']).toBe('${{ inputs.timeout-minutes }}');
    // Empty: devpkg's defaults (or the caller's devpkg.yaml) apply.
    const dflt = (k: 'timeout' | 'settle') => String(inputs[k]!.default ?? '') || defaultOf(k);
    const b = jobBudget({ mode: 'kind', timeoutMs: parseDuration(dflt('timeout'), 'timeout'), settleMs: parseDuration(dflt('settle'), 'settle') });
    expect(Number(inputs['timeout-minutes']!.default)).toBeGreaterThanOrEqual(b.minutes);
  });
});

describe('the release workflow', () => {
  const wf = load('.github/workflows/release.yml') as Workflow & { on: { push: { tags: string[] } }; permissions?: unknown };
  const jobs = wf.jobs!;
  const runs = (job: string) => jobs[job]!.steps!.map((st) => st.run ?? st.uses?.replace(/@.*/, '') ?? '');

  test('runs on a pushed version tag, with no permission but what each job asks', () => {
    expect(wf.on.push.tags).toEqual(['v*']);
    expect(wf.permissions).toEqual({});
    expect(jobs.check!.permissions).toEqual({ contents: 'read' });
    expect(jobs.release!.permissions).toEqual({ contents: 'write' });
  });

  test('packs devpkg only after the checks: the tag, check-dist and the unit tier (the workflow tier runs the rest of it)', () => {
    expect(runs('check')).toEqual([
      'actions/checkout',
      'actions/setup-node',
      'node scripts/release.mjs check',
      'npm ci --no-audit --no-fund',
      'npm run check-dist',
      'npm run test:unit',
      'node scripts/stamp-commit.mjs dist "$GITHUB_SHA"\nnpm pack --ignore-scripts\n',
      'actions/upload-artifact',
    ]);
  });

  test('publishes from the checked package, with no build of its own', () => {
    expect((jobs.release as { needs?: unknown }).needs).toBe('check');
    expect(runs('release')).toEqual(['actions/checkout', 'actions/setup-node', 'actions/download-artifact', 'node scripts/release.mjs publish npm-package/devpkg-*.tgz']);
  });
});

test('dependabot waits a week before proposing a release (zizmor dependabot-cooldown)', () => {
  const d = parse(readFileSync('.github/dependabot.yml', 'utf8')) as { updates: { cooldown?: { 'default-days'?: number } }[] };
  for (const u of d.updates) expect(u.cooldown?.['default-days']).toBeGreaterThanOrEqual(7);
});

test('every registry container the workflows start is devpkg\'s pinned image (by digest, never a bare tag)', async () => {
  const { DEFAULT_REGISTRY_IMAGE } = await import('../../src/cluster/kind.js');
  const runs = files.flatMap((f) => Object.values(load(f).jobs ?? {}).flatMap((j) => (j.steps ?? []).map((st) => String(st.run ?? ''))));
  const images = runs.flatMap((r) => [...r.matchAll(/docker run [^\n]*?\s(\S*registry:\S+)/g)].map((m) => m[1]));
  expect(images.length).toBeGreaterThan(0);
  for (const image of images) expect(image).toBe(DEFAULT_REGISTRY_IMAGE);
});

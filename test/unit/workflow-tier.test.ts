// The pure parts of the workflow tier (test/workflows/): reading act's --json log, naming jobs,
// finding the actions our workflows pin, the stand-in actions' input check and globs, and that
// every example workflow is run by one of the tier's test files.
import { jobKey, parseActLog, pinnedActions, STANDIN_ACTIONS, workflowsRunBy } from '../workflows/helpers/act.js';
import { badArtifactName, globRegExp, inputVariable, undeclaredInputs } from '../workflows/standins/common.mjs';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';

test('parseActLog: job results, step outputs (last wins) and annotations, per job', () => {
  const lines = [
    'not json',
    JSON.stringify({ job: 'wf/detect', msg: '  ⚙  ::set-output:: packages=[]', command: 'set-output', name: 'packages', arg: '[]' }),
    JSON.stringify({ job: 'wf/detect', command: 'set-output', name: 'result', arg: 'skipped' }),
    JSON.stringify({ job: 'wf/detect', command: 'set-output', name: 'result', arg: 'success' }),
    JSON.stringify({ job: 'wf/detect', msg: '  🚧  ::warning::careful' }),
    JSON.stringify({ job: 'wf/detect', msg: '🏁  Job succeeded', jobResult: 'success' }),
    JSON.stringify({ job: 'wf/check', msg: '🏁  Job failed', jobResult: 'failure' }),
  ].join('\n');
  const { log, jobs } = parseActLog(lines);
  expect(log).toHaveLength(6);
  expect(jobs.get('wf/detect')).toEqual({ job: 'wf/detect', result: 'success', outputs: { packages: '[]', result: 'success' }, annotations: ['🚧  ::warning::careful'] });
  expect(jobs.get('wf/check')!.result).toBe('failure');
});

test.each([
  ['devpkg/devpkg (reusable)/verify antrea/1.5.3-1  ', 'verify antrea/1.5.3-1'],
  ['self-test-reusable/check', 'check'],
  ['devpkg plan/plan', 'plan'],
])('jobKey(%s)', (name, key) => expect(jobKey(name)).toBe(key));

test('pinnedActions finds every actions/NAME@SHA pin; the tier has a stand-in for each one its workflows use', () => {
  expect(pinnedActions(['- uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7', 'uses: actions/checkout@v4', 'uses: ./'])).toEqual(
    new Map([['checkout', new Set(['3d3c42e5aac5ba805825da76410c181273ba90b1'])]]),
  );
  const root = join(import.meta.dirname, '..', '..');
  const texts = ['self-test-reusable.yml', 'devpkg.yml', 'e2e-kind.yml']
    .map((f) => join(root, '.github', 'workflows', f))
    .concat(readdirSync(join(root, 'examples', 'workflows')).map((f) => join(root, 'examples', 'workflows', f)))
    .map((f) => readFileSync(f, 'utf8'));
  for (const name of pinnedActions(texts).keys()) expect(STANDIN_ACTIONS).toContain(name);
});

test('every stand-in declares runs.using node24 and a main, and outputs', () => {
  for (const name of STANDIN_ACTIONS) {
    const action = parseYaml(readFileSync(join(import.meta.dirname, '..', 'workflows', 'standins', name, 'action.yml'), 'utf8')) as { runs: { using: string; main: string }; inputs: object };
    expect(action.runs).toEqual({ using: 'node24', main: 'main.mjs' });
    expect(Object.keys(action.inputs).length).toBeGreaterThan(3);
  }
});

test('undeclaredInputs names the INPUT_ variables no declared input maps to, as the runner names them', () => {
  expect(inputVariable('merge-multiple')).toBe('INPUT_MERGE-MULTIPLE');
  expect(inputVariable('a b.c')).toBe('INPUT_A_B_C');
  const env = { 'INPUT_MERGE-MULTIPLE': 'true', INPUT_PATH: 'x', INPUT_RETENTION: '3', PATH: '/bin' };
  expect(undeclaredInputs(env, ['merge-multiple', 'path'])).toEqual(['retention']);
  expect(undeclaredInputs(env, ['merge-multiple', 'path', 'retention'])).toEqual([]);
});

test.each([
  ['devpkg-results-*', 'devpkg-results-manual-antrea-1.5.3', true],
  ['devpkg-results-*', 'devpkg-results', false],
  ['devpkg-results*', 'devpkg-results', true],
  ['a/*', 'a/b/c', false],
  ['a/**', 'a/b/c', true],
  ['leg-?', 'leg-a', true],
  ['x.y', 'xzy', false],
])('globRegExp(%s) on %s: %s', (glob, name, matches) => expect(globRegExp(glob).test(name)).toBe(matches));

test.each([
  ['devpkg-results-a-1.5.3', false],
  ['', true],
  ['a/b', true],
  ['a:b', true],
  ['line\nbreak', true],
])('badArtifactName(%j): %s', (name, bad) => expect(badArtifactName(name)).toBe(bad));

test.each([
  [`const WF = '.github/workflows/devpkg-plan.yml';`, ['devpkg-plan.yml']],
  [`runIn(w, c.dir, ".github/workflows/b.yml", 'pull_request', e); runIn(w, d, '.github/workflows/a.yaml', 'push', e); runIn(w, d, '.github/workflows/b.yml', 'push', e)`, ['a.yaml', 'b.yml']],
  ['// runs devpkg-kind.yml on a pull request', []],
  [`join(dir, '.github', 'workflows', 'e2e-kind.yml')`, []],
])('workflowsRunBy(%s)', (source, expected) => expect(workflowsRunBy(source)).toEqual(expected));

test('every example workflow has a workflow-tier case that runs it', () => {
  const root = join(import.meta.dirname, '..', '..');
  const tier = join(root, 'test', 'workflows');
  const run = new Set(
    readdirSync(tier)
      .filter((f) => f.endsWith('.test.ts'))
      .flatMap((f) => workflowsRunBy(readFileSync(join(tier, f), 'utf8'))),
  );
  const examples = readdirSync(join(root, 'examples', 'workflows')).filter((f) => /\.ya?ml$/.test(f));
  expect(examples.length).toBeGreaterThan(0);
  expect(examples.filter((f) => !run.has(f))).toEqual([]);
});

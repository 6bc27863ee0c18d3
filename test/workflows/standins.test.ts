// The stand-ins for GitHub's actions, run by act the way our workflows use them: an input the real
// action does not declare fails the run; the artifact store honours name, path, pattern,
// merge-multiple and overwrite; setup-node puts the wanted Node first on PATH; checkout takes a
// repository at a ref into a path.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectSuccess, git, jobResults, pinnedActions, shippedWorkflows } from './helpers/act.js';
import { artifactsOf, makeWorld, runIn, type World } from './helpers/world.js';
import { readFileSync } from 'node:fs';

const T = 300_000;
let w: World;
let repo: string;
const pin = (name: string): string => {
  const shas = pinnedActions(shippedWorkflows().map((f) => readFileSync(f, 'utf8'))).get(name);
  if (!shas || shas.size !== 1) throw new Error(`expected one pinned SHA of actions/${name}, got ${[...(shas ?? [])].join(', ')}`);
  return `actions/${name}@${[...shas][0]}`;
};

/** Writes a workflow into the test repository and commits it. */
function workflow(name: string, text: string): string {
  const path = `.github/workflows/${name}`;
  writeFileSync(join(repo, path), text);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', name);
  return path;
}

beforeAll(async () => {
  w = await makeWorld('example', 'tce', 'devpkg-wf-standins-');
  repo = join(w.scratch, 'repo');
  mkdirSync(join(repo, '.github', 'workflows'), { recursive: true });
  mkdirSync(join(repo, 'out', 'a', '.hidden'), { recursive: true });
  writeFileSync(join(repo, 'out', 'a', 'one.txt'), 'one\n');
  writeFileSync(join(repo, 'out', 'a', '.hidden', 'h.txt'), 'hidden\n');
  writeFileSync(join(repo, 'out', 'two.txt'), 'two\n');
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'remote', 'add', 'origin', 'https://github.com/example/tce.git');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'files');
}, T);
afterAll(async () => {
  await w?.close();
});

test('an input the real action does not declare fails the run, naming it', async () => {
  const wf = workflow('undeclared.yml', `name: undeclared
on: workflow_dispatch
jobs:
  up:
    runs-on: ubuntu-latest
    steps:
      - uses: ${pin('upload-artifact')}
        with:
          name: x
          path: out
          retention: 3
`);
  const run = await runIn(w, repo, wf, 'workflow_dispatch', { inputs: {} });
  expect(run.code).not.toBe(0);
  expect(jobResults(run)).toEqual({ up: 'failure' });
  expect(run.text).toContain('does not take the input(s) retention');
}, T);

test('artifacts: a folder upload, overwrite, a second name; download by name, by pattern, merged', async () => {
  const wf = workflow('artifacts.yml', `name: artifacts
on: workflow_dispatch
jobs:
  up:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        leg: [a, b]
    steps:
      # The workflow's own repository: act copies the work tree here (it skips this checkout).
      - uses: ${pin('checkout')}
      - uses: ${pin('upload-artifact')}
        with:
          name: leg-\${{ matrix.leg }}
          path: out
      - uses: ${pin('upload-artifact')}
        with:
          name: leg-\${{ matrix.leg }}
          path: out/a
          include-hidden-files: true
          overwrite: true
  down:
    needs: up
    runs-on: ubuntu-latest
    steps:
      - uses: ${pin('download-artifact')}
        with:
          name: leg-a
          path: by-name
      - uses: ${pin('download-artifact')}
        with:
          pattern: leg-*
          path: by-pattern
      - uses: ${pin('download-artifact')}
        with:
          pattern: leg-*
          path: merged
          merge-multiple: true
      - run: |
          set -eux
          test "$(cat by-name/one.txt)" = one
          test -f by-name/.hidden/h.txt
          test ! -e by-name/two.txt
          test -f by-pattern/leg-a/one.txt
          test -f by-pattern/leg-b/one.txt
          test -f merged/one.txt
          test ! -e merged/leg-a
`);
  const id = w.nextRunId();
  const run = await runIn(w, repo, wf, 'workflow_dispatch', { inputs: {} }, { runId: id });
  expectSuccess(run);
  expect(artifactsOf(w, 'example/tce', id)).toEqual({ 'leg-a': ['.hidden/h.txt', 'one.txt'], 'leg-b': ['.hidden/h.txt', 'one.txt'] });
}, T);

test('an artifact name uploaded twice in a run without overwrite fails the step, as on GitHub', async () => {
  const wf = workflow('twice.yml', `name: twice
on: workflow_dispatch
jobs:
  up:
    runs-on: ubuntu-latest
    steps:
      - uses: ${pin('checkout')}
      - uses: ${pin('upload-artifact')}
        with:
          name: same
          path: out/two.txt
      - uses: ${pin('upload-artifact')}
        with:
          name: same
          path: out/a
`);
  const run = await runIn(w, repo, wf, 'workflow_dispatch', { inputs: {} });
  expect(run.code).not.toBe(0);
  expect(run.text).toContain('an artifact with this name already exists on the workflow run');
}, T);

test('setup-node puts the wanted Node first on PATH; a Node it does not have fails', async () => {
  const wf = workflow('node.yml', `name: node
on: workflow_dispatch
jobs:
  n24:
    runs-on: ubuntu-latest
    steps:
      - uses: ${pin('setup-node')}
        with:
          node-version: 24
          cache: npm
      - run: node --version | grep -q '^v24\\.'
  n18:
    runs-on: ubuntu-latest
    steps:
      - uses: ${pin('setup-node')}
        with:
          node-version: 18
`);
  const run = await runIn(w, repo, wf, 'workflow_dispatch', { inputs: {} }, { path: process.env.PATH });
  expect(jobResults(run)).toEqual({ n24: 'success', n18: 'failure' });
  expect(run.text).toContain('Node 18 is not one the stand-in has');
}, T);

test('checkout: another repository at a ref into a path; an unknown repository fails', async () => {
  const wf = workflow('checkout.yml', `name: checkout
on: workflow_dispatch
jobs:
  co:
    runs-on: ubuntu-latest
    steps:
      - id: co
        uses: ${pin('checkout')}
        with:
          repository: owner/devpkg
          ref: ${w.devpkgSha}
          path: .devpkg-action
          persist-credentials: false
      - run: test -f .devpkg-action/action.yml && test -f .devpkg-action/dist/index.js && test "$(git -C .devpkg-action rev-parse HEAD)" = "$COMMIT"
        env:
          COMMIT: \${{ steps.co.outputs.commit }}
  unknown:
    runs-on: ubuntu-latest
    steps:
      - uses: ${pin('checkout')}
        with:
          repository: someone/else
          path: else
`);
  const run = await runIn(w, repo, wf, 'workflow_dispatch', { inputs: {} });
  expect(jobResults(run)).toEqual({ co: 'success', unknown: 'failure' });
  expect(run.text).toContain('repository someone/else is not one the stand-in serves');
}, T);

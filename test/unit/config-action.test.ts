// The action reads the repository's devpkg.yaml: a workflow that gives only `mode` behaves as one
// that gives the inputs; an input still wins; a bad file fails the step naming its file:line.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { jest } from '@jest/globals';
import { runMain } from '../../src/main.js';
import { actionTestScope } from '../support/action-scope.js';

const dirs = actionTestScope();

/** examples/tce-packages with its packages in pkgs/, a base commit and a head that changes calico. */
function setup(inputs: Record<string, string>, config?: string) {
  // One test may run the action more than once: no input or variable of an earlier run stays.
  for (const k of Object.keys(process.env)) if (k.startsWith('INPUT_') || k.startsWith('DEVPKG_')) delete process.env[k];
  const work = mkdtempSync(join(tmpdir(), 'devpkg-config-action-'));
  dirs.push(work);
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  renameSync(join(repo, 'addons/packages'), join(repo, 'pkgs'));
  if (config !== undefined) writeFileSync(join(repo, 'devpkg.yaml'), config);
  const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...a], { cwd: repo, encoding: 'utf8' }).trim();
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'base');
  const base = g('rev-parse', 'HEAD');
  appendFileSync(join(repo, 'pkgs/calico/3.22.1/bundle/config/values.yaml'), '#! changed\n');
  g('commit', '-qam', 'change calico');
  const head = g('rev-parse', 'HEAD');
  writeFileSync(join(work, 'event.json'), JSON.stringify({ number: 9, pull_request: { number: 9, base: { sha: base }, head: { sha: head } } }));
  for (const f of ['output', 'state', 'summary']) writeFileSync(join(work, f), '');
  Object.assign(process.env, {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: join(work, 'event.json'),
    GITHUB_WORKSPACE: repo,
    GITHUB_REPOSITORY: 'example/packages',
    GITHUB_RUN_ID: '100',
    GITHUB_RUN_NUMBER: '12',
    GITHUB_RUN_ATTEMPT: '3',
    GITHUB_OUTPUT: join(work, 'output'),
    GITHUB_STATE: join(work, 'state'),
    GITHUB_STEP_SUMMARY: join(work, 'summary'),
    RUNNER_TEMP: work,
  });
  // As the runner sets them: every input of action.yml is present, empty unless the workflow gave it
  // (mode's and github-token's defaults are action.yml's).
  for (const [k, v] of Object.entries({ 'github-token': 'gh-token', ...inputs })) process.env[`INPUT_${k.toUpperCase()}`] = v;
  return { work };
}

async function run(work: string): Promise<{ log: string; packages?: unknown; matrix?: unknown }> {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await runMain();
    const log = write.mock.calls.map((c) => String(c[0])).join('');
    const text = readFileSync(join(work, 'output'), 'utf8');
    const out = (name: string) => {
      const m = new RegExp(`^${name}<<(.+)\\n([\\s\\S]*?)\\n\\1$`, 'm').exec(text);
      return m ? JSON.parse(m[2]!) : undefined;
    };
    return { log, packages: out('packages'), matrix: out('matrix') };
  } finally {
    write.mockRestore();
  }
}

const SETTINGS = {
  'packages-dir': 'pkgs',
  layout: 'tce',
  'ref-name': 'calico.community.tanzu.vmware.com=calico.tanzu.vmware.com',
  registry: 'ghcr.io/example/dev',
  comment: 'false',
};
const FILE = `${Object.entries(SETTINGS).map(([k, v]) => `${k}: ${v}`).join('\n')}\n`;

test('with only mode set, a devpkg.yaml holding packages-dir, layout and ref-name plans as the inputs do', async () => {
  const withInputs = await run(setup({ mode: 'plan', ...SETTINGS }).work);
  expect(process.exitCode ?? 0).toBe(0);
  expect(withInputs.packages).toEqual([expect.objectContaining({ path: 'pkgs/calico/3.22.1', targetRefName: 'calico.tanzu.vmware.com', bundleImage: 'ghcr.io/example/dev/calico-bundle:3.22.2-dev.12.3' })]);

  const withFile = await run(setup({ mode: 'plan' }, FILE).work);
  expect(process.exitCode ?? 0).toBe(0);
  expect(withFile.packages).toEqual(withInputs.packages);
  expect(withFile.matrix).toEqual(withInputs.matrix);

  // Neither: the packages are not found in addons/packages (so the file is what made the difference).
  const neither = await run(setup({ mode: 'plan', comment: 'false' }).work);
  expect(neither.packages).not.toEqual(withInputs.packages);
}, 60_000); // three action runs, each with git: a loaded machine takes longer than jest's 5 s

test('an input wins over DEVPKG_* which wins over the file', async () => {
  const { work } = setup({ mode: 'plan', registry: 'ghcr.io/from/input' }, `${FILE}`);
  process.env.DEVPKG_REGISTRY = 'ghcr.io/from/env';
  process.env.DEVPKG_REF_NAME = 'calico.community.tanzu.vmware.com=calico.example.com';
  const r = await run(work);
  expect(process.exitCode ?? 0).toBe(0);
  expect(r.packages).toEqual([expect.objectContaining({ targetRefName: 'calico.example.com', bundleImage: 'ghcr.io/from/input/calico-bundle:3.22.2-dev.12.3' })]);
}, 30_000);

test.each([
  ['a bad value', 'packages-dir: pkgs\nlayout: tce\nsettle: 5x\n', {}, '::error::devpkg.yaml:3: settle: "5x" is not a duration'],
  ['an unknown key', 'packages-dir: pkgs\nsetle: 5m\n', {}, '::error::devpkg.yaml:2: unknown key "setle"; did you mean settle?'],
  ['a secret', 'registry-password: hunter2\n', {}, '::error::devpkg.yaml:1: registry-password: not read from a file'],
  ['a missing config input', '', { config: 'ci/devpkg.yaml' }, '::error::input config: ci/devpkg.yaml does not exist'],
  ['a bad value in a named file', 'settle: 5x\n', { config: 'devpkg.yaml' }, '::error::devpkg.yaml:1: settle: "5x" is not a duration'],
])('%s fails the step, naming where it is', async (_what, file, inputs, message) => {
  const { work } = setup({ mode: 'plan', ...inputs }, file);
  const r = await run(work);
  expect(process.exitCode).toBe(1);
  expect(r.log).toContain(message);
}, 30_000);

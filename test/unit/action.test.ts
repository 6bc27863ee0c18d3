// The action entry run as GitHub runs it: INPUT_* and GITHUB_* variables, an event file,
// and the files behind GITHUB_OUTPUT, GITHUB_STATE and GITHUB_STEP_SUMMARY.
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { jest } from '@jest/globals';
import { runMain } from '../../src/main.js';
import { runPost } from '../../src/post.js';
import { actionTestScope } from '../support/action-scope.js';

const dirs = actionTestScope();

function readOutputs(file: string): Record<string, string> {
  // core.setOutput writes `name<<DELIM\nvalue\nDELIM` blocks.
  const out: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i]);
    if (!m) continue;
    const end = lines.indexOf(m[2], i + 1);
    out[m[1]] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}

function setup(event: object | ((base: string, head: string) => object), inputs: Record<string, string>) {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-action-'));
  dirs.push(work);
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...a], { cwd: repo, encoding: 'utf8' }).trim();
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'base');
  const base = g('rev-parse', 'HEAD');
  appendFileSync(join(repo, 'addons/packages/calico/3.22.1/bundle/config/values.yaml'), '#! changed\n');
  g('commit', '-qam', 'change calico');
  const head = g('rev-parse', 'HEAD');
  const ev = typeof event === 'function' ? event(base, head) : event;
  writeFileSync(join(work, 'event.json'), JSON.stringify(ev));
  for (const f of ['output', 'state', 'summary']) writeFileSync(join(work, f), '');
  Object.assign(process.env, {
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
    'INPUT_COMMENT': 'false',
    'INPUT_PACKAGES-DIR': 'addons/packages',
    'INPUT_ARTIFACT-NAME': 'devpkg-results',
    'INPUT_COMMENT-HEADER': 'devpkg',
  });
  for (const [k, v] of Object.entries(inputs)) process.env[`INPUT_${k.toUpperCase()}`] = v;
  return { work, base, head };
}

/** Runs fn with process.stdout captured; returns what was printed (workflow commands land there). */
async function printed(fn: () => Promise<void>): Promise<string> {
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await fn();
    return write.mock.calls.map((c) => String(c[0])).join('');
  } finally {
    write.mockRestore();
  }
}

test('plan mode on a pull_request event writes outputs and a summary', async () => {
  const { work } = setup((base, head) => ({ number: 9, pull_request: { number: 9, base: { sha: base }, head: { sha: head } } }), {
    mode: 'plan',
    'ref-name': 'calico.community.tanzu.vmware.com=calico.tanzu.vmware.com',
    registry: 'ghcr.io/example/dev',
  });
  process.env.GITHUB_EVENT_NAME = 'pull_request';
  await runMain();
  expect(process.exitCode ?? 0).toBe(0);
  const outputs = readOutputs(join(work, 'output'));
  const packages = JSON.parse(outputs.packages);
  expect(packages.map((p: { name: string; version: string }) => `${p.name}/${p.version}`)).toEqual(['calico/3.22.1']);
  expect(packages[0].targetRefName).toBe('calico.tanzu.vmware.com');
  // run 12, attempt 3: the dev version carries both so it rises with every run
  expect(packages[0].devVersion).toBe('3.22.2-dev.12.3');
  expect(packages[0].bundleImage).toBe('ghcr.io/example/dev/calico-bundle:3.22.2-dev.12.3');
  expect(JSON.parse(outputs.matrix).include[0].package).toBe('calico/3.22.1');
  expect(outputs.result).toBe('success');
  const summary = readFileSync(join(work, 'summary'), 'utf8');
  expect(summary).toContain('calico');
  expect(summary).toContain('3.22.2-dev.12.3');
});

test('detect mode on a push event diffs before..after', async () => {
  const { work } = setup((base, head) => ({ before: base, after: head }), { mode: 'detect' });
  process.env.GITHUB_EVENT_NAME = 'push';
  await runMain();
  expect(process.exitCode ?? 0).toBe(0);
  const outputs = readOutputs(join(work, 'output'));
  expect(JSON.parse(outputs.packages)).toEqual([{ name: 'calico', version: '3.22.1', path: 'addons/packages/calico/3.22.1' }]);
  expect(outputs.removed).toBe('[]');
});

test('workflow_dispatch without packages fails with a message that says what to set', async () => {
  setup({}, { mode: 'plan' });
  process.env.GITHUB_EVENT_NAME = 'workflow_dispatch';
  const log = await printed(runMain);
  expect(process.exitCode).toBe(1);
  expect(log).toContain('::error::workflow_dispatch: nothing to diff; set the packages input');
});

test('an unknown mode fails and names the modes', async () => {
  setup({}, { mode: 'deploy' });
  const log = await printed(runMain);
  expect(process.exitCode).toBe(1);
  expect(log).toMatch(/input mode: "deploy" is not one of plan, detect/);
});

test('credentials are masked, multi-line package lists are read, the log is grouped', async () => {
  const { work } = setup({}, { mode: 'plan', packages: 'calico/3.22.1\n# not this one\n', 'registry-password': 's3cret-pw' });
  process.env.GITHUB_EVENT_NAME = 'workflow_dispatch';
  const log = await printed(runMain);
  expect(process.exitCode ?? 0).toBe(0);
  expect(log).toContain('::add-mask::s3cret-pw');
  expect(log).toMatch(/::group::Plan\n[\s\S]*::endgroup::/);
  expect(JSON.parse(readOutputs(join(work, 'output')).packages).map((p: { name: string }) => p.name)).toEqual(['calico']);
});

test('a boolean input outside YAML 1.2 true/false fails and says what to use', async () => {
  setup({}, { mode: 'plan', all: 'yes' });
  const log = await printed(runMain);
  expect(process.exitCode).toBe(1);
  expect(log).toContain('::error::input all: "yes" is not a boolean; use true or false');
});

test('a broken package.yaml becomes an error annotation on its file and line', async () => {
  const { work } = setup({}, { mode: 'plan', packages: 'calico/3.22.1' });
  process.env.GITHUB_EVENT_NAME = 'workflow_dispatch';
  const file = 'addons/packages/calico/3.22.1/package.yaml';
  const pkg = join(work, 'repo', file);
  writeFileSync(pkg, readFileSync(pkg, 'utf8').replace(/^ {2}version: 3\.22\.1$/m, '  version: v3.22.1'));
  const log = await printed(runMain);
  expect(process.exitCode).toBe(1);
  expect(log).toMatch(new RegExp(`::error title=devpkg calico/3\\.22\\.1,file=${file.replace(/\./g, '\\.')},line=7::Package spec\\.version "v3\\.22\\.1" must be strict semver`));
});

test('the post step removes what main recorded in GITHUB_STATE', async () => {
  const { work } = setup({}, {});
  const leftover = join(work, 'leftover');
  mkdirSync(leftover);
  // The runner hands main's saved state to post as STATE_<name>.
  process.env['STATE_devpkg-cleanup'] = JSON.stringify([{ kind: 'temp-dir', path: leftover }]);
  const log = await printed(() => runPost());
  expect(existsSync(leftover)).toBe(false);
  expect(log).toContain('::group::devpkg cleanup');
  expect(log).toContain(`cleaned up temporary folder ${leftover}`);
});

// devpkg.yaml and DEVPKG_* as the commands read them: found, checked (file:line, exit 2), layered
// under the flags, shown by `devpkg config`.
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { jest } from '@jest/globals';
import { runCli } from '../cli.js';
import { findConfigFile } from './load.js';

// Each test copies a repository and runs git and plan, some several times: room for a loaded machine.
jest.setTimeout(30_000);

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'devpkg-config-'));
  dirs.push(d);
  return d;
}

/** A git repository holding examples/tce-packages with its packages moved to pkgs/. */
function repoWithPkgs(): string {
  const repo = join(tempDir(), 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  renameSync(join(repo, 'addons/packages'), join(repo, 'pkgs'));
  const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...a], { cwd: repo });
  g('init', '-q', '-b', 'main');
  g('add', '-A');
  g('commit', '-qm', 'base');
  return repo;
}

async function cli(argv: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: opts.env ?? {}, cwd: opts.cwd ?? process.cwd() });
  return { code, stdout, stderr };
}

describe('a bad devpkg.yaml is refused with its file:line, exit 2', () => {
  test.each([
    ['packages-dir: pkgs\nlayout: tce\nsettle: 5x\n', 'devpkg.yaml:3: settle: "5x" is not a duration; use e.g. 90s, 5m or 1h'],
    ['setle: 5m\n', 'devpkg.yaml:1: unknown key "setle"; did you mean settle?'],
    ['\n\nlayot: tce\n', 'devpkg.yaml:3: unknown key "layot"; did you mean layout?'],
    // Two swapped pairs are two edits (the one edit distance of src/suggest.ts, as for commands and flags).
    ['pakcages-dri: pkgs\n', 'devpkg.yaml:1: unknown key "pakcages-dri"; did you mean packages-dir?'],
    ['registry-password: hunter2\n', 'devpkg.yaml:1: registry-password: not read from a file: a secret does not belong in a file in the repository: give the input registry-password (from a secret) or DEVPKG_REGISTRY_PASSWORD'],
    ['github-token: ghp_x\n', 'devpkg.yaml:1: github-token: not read from a file'],
    ['working-directory: sub\n', 'devpkg.yaml:1: working-directory: not read from a file'],
    ['layout: helm\n', 'devpkg.yaml:1: layout: "helm" is not'],
    ['registry: https://ghcr.io/me\n', 'devpkg.yaml:1: registry: "https://ghcr.io/me" has a scheme (https://)'],
    ['dev-version: v1.2.3\n', 'devpkg.yaml:1: dev-version: "v1.2.3" starts with "v"'],
    ['settle: 20m\n', 'devpkg.yaml:1: settle 20m is longer than --timeout 10m'],
    ['all: yes\n', 'devpkg.yaml:1: all: "yes" is not a boolean; use true or false'],
    ['plain-http: 1\n', 'devpkg.yaml:1: plain-http: "1" is not a boolean; use true or false'],
    ['packages: {antrea: 1.5.3}\n', 'devpkg.yaml:1: packages: give a string or a list of strings'],
    ['packages: [antrea]\n', 'devpkg.yaml:1: packages: "antrea" is not NAME/VERSION'],
    ['registry: [a, b]\n', 'devpkg.yaml:1: registry: give a single value, not a list'],
    ['settle:\n', 'devpkg.yaml:1: settle: has no value; give one or remove the line'],
    ['- settle: 5m\n', 'devpkg.yaml:1: give a mapping of settings'],
    ['layout: tce\nlayout: kctrl\n', 'devpkg.yaml:2: not valid YAML'],
    ['layout: [tce\n', 'devpkg.yaml:2: not valid YAML'],
  ])('%j', async (content, message) => {
    const repo = repoWithPkgs();
    writeFileSync(join(repo, 'devpkg.yaml'), content);
    // No selection flag: one on the command line would take the file's packages/all out of play.
    const r = await cli(['plan'], { cwd: repo });
    expect(r.stderr).toContain(`devpkg plan: ${message}`);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
  });
});

describe('a bad DEVPKG_* value is named by its variable, exit 2', () => {
  test.each([
    [{ DEVPKG_SETTLE: '5x' }, 'DEVPKG_SETTLE: "5x" is not a duration'],
    [{ DEVPKG_LAYOUT: 'helm' }, 'DEVPKG_LAYOUT: "helm" is not'],
    [{ DEVPKG_ALL: 'yes' }, 'DEVPKG_ALL: "yes" is not a boolean'],
    [{ DEVPKG_CONFIG: 'nowhere.yaml' }, 'DEVPKG_CONFIG: nowhere.yaml does not exist'],
  ])('%j', async (env, message) => {
    const r = await cli(['plan'], { cwd: repoWithPkgs(), env });
    expect(r.stderr).toContain(`devpkg plan: ${message}`);
    expect(r.code).toBe(2);
  });
});

test('--config names a file that must exist', async () => {
  const repo = repoWithPkgs();
  expect(await cli(['plan', '--all', '--config', 'missing.yaml'], { cwd: repo })).toMatchObject({ code: 2, stderr: 'devpkg plan: --config: missing.yaml does not exist; give a devpkg.yaml\n' });
  mkdirSync(join(repo, 'ci'));
  writeFileSync(join(repo, 'ci/devpkg.yaml'), 'settle: nope\n');
  expect((await cli(['plan', '--all', '--config', 'ci/devpkg.yaml'], { cwd: repo })).stderr).toContain('ci/devpkg.yaml:1: settle: "nope" is not a duration');
  expect((await cli(['plan', '--all', '--config', 'ci'], { cwd: repo })).stderr).toContain('--config: ci is not a file');
});

describe('devpkg plan reads its flags from devpkg.yaml as from the command line', () => {
  const settings = ['packages-dir: pkgs', 'layout: tce', 'ref-name: calico.community.tanzu.vmware.com=calico.tanzu.vmware.com', 'registry: ghcr.io/example/dev'];
  const flags = ['--packages-dir', 'pkgs', '--layout', 'tce', '--ref-name', 'calico.community.tanzu.vmware.com=calico.tanzu.vmware.com', '--registry', 'ghcr.io/example/dev'];
  const plan = async (repo: string, extra: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) => {
    // A fixed dev version: a planned one rises with the clock.
    const r = await cli(['plan', '--repo', repo, '--packages', 'calico/3.22.1', '--dev-version', '3.22.2-dev.1', '--json', ...extra], opts);
    return { code: r.code, stderr: r.stderr, plan: r.code === 0 ? (JSON.parse(r.stdout) as { packages: Array<{ path: string; targetRefName: string; bundleImage: string }> }) : undefined };
  };

  test.each([
    ['the repository folder', '.', 'devpkg.yaml'],
    ['the git top level, seen from a subfolder given as --repo', 'pkgs', 'devpkg.yaml'],
  ])('found in %s', async (_what, repoArg, file) => {
    const repo = repoWithPkgs();
    const withFlags = await plan(repo, flags);
    expect(withFlags.code).toBe(0);
    expect(withFlags.plan!.packages[0]).toMatchObject({ path: 'pkgs/calico/3.22.1', targetRefName: 'calico.tanzu.vmware.com', bundleImage: expect.stringMatching(/^ghcr\.io\/example\/dev\//) });
    // Without the settings the plan is not the same one (the test would pass without the feature otherwise).
    expect((await plan(repo, [])).plan?.packages[0]?.path).not.toBe('pkgs/calico/3.22.1');
    writeFileSync(join(repo, file), `${settings.join('\n')}\n`);
    if (repoArg === '.') expect(await plan(repo, [])).toEqual(withFlags);
    else {
      // From pkgs/ the packages folder is "." relative to it: the same file, found above, still applies.
      const r = await cli(['config', '--repo', join(repo, repoArg), '--json']);
      expect(JSON.parse(r.stdout).file).toBe(join(repo, 'devpkg.yaml'));
    }
  });

  test('from DEVPKG_* variables, which a flag overrides and which override the file', async () => {
    const repo = repoWithPkgs();
    const withFlags = await plan(repo, flags);
    writeFileSync(join(repo, 'devpkg.yaml'), 'packages-dir: nothing-here\nlayout: tce\nregistry: file.example.com/dev\n');
    const env = { DEVPKG_PACKAGES_DIR: 'pkgs', DEVPKG_REF_NAME: 'calico.community.tanzu.vmware.com=calico.tanzu.vmware.com', DEVPKG_REGISTRY: 'env.example.com/dev' };
    const r = await plan(repo, ['--registry', 'ghcr.io/example/dev'], { env });
    expect(r).toEqual(withFlags);
  });

  test('a flag of the same group wins over the whole group in the file (--packages over all: true)', async () => {
    const repo = repoWithPkgs();
    writeFileSync(join(repo, 'devpkg.yaml'), 'packages-dir: pkgs\nall: true\n');
    const r = await plan(repo, []);
    expect(r.code).toBe(0);
    expect(r.plan!.packages.map((p) => p.path)).toEqual(['pkgs/calico/3.22.1']);
  });

  test('keys the command does not take are ignored by it (the file is shared)', async () => {
    const repo = repoWithPkgs();
    writeFileSync(join(repo, 'devpkg.yaml'), 'packages-dir: pkgs\nkind-version: v0.33.0\ncomment: false\nno-install: true\n');
    const r = await plan(repo, []);
    expect(r.code).toBe(0);
    expect(r.plan!.packages[0]!.path).toBe('pkgs/calico/3.22.1');
  });

  test('other DEVPKG_ variables are no settings (DEVPKG_DEBUG, DEVPKG_CACHE, DEVPKG_TEST_*)', async () => {
    const repo = repoWithPkgs();
    const r = await plan(repo, ['--packages-dir', 'pkgs'], { env: { DEVPKG_DEBUG: '1', DEVPKG_CACHE: '/nowhere', DEVPKG_TEST_REGISTRY: 'x', DEVPKG_HARNESS_DIR: 'y' } });
    expect(r.code).toBe(0);
  });
});

test('devpkg config prints each value and where it came from', async () => {
  const repo = repoWithPkgs();
  writeFileSync(join(repo, 'devpkg.yaml'), '# shared settings\npackages-dir: pkgs\nignore: ["**/*.md", docs/**]\nkind-config: ci/kind.yaml\n');
  const r = await cli(['config', '--json'], { cwd: repo, env: { DEVPKG_SETTLE: '90s', DEVPKG_REGISTRY_PASSWORD: 'hunter2' } });
  expect(r.code).toBe(0);
  const out = JSON.parse(r.stdout) as { file: string; settings: Record<string, { value: string | null; source: string | null; env: string }> };
  expect(out.file).toBe(join(repo, 'devpkg.yaml'));
  expect(out.settings['packages-dir']).toEqual({ value: 'pkgs', source: 'devpkg.yaml:2', env: 'DEVPKG_PACKAGES_DIR' });
  expect(out.settings.ignore).toEqual({ value: '**/*.md\ndocs/**', source: 'devpkg.yaml:3', env: 'DEVPKG_IGNORE' });
  // Paths in the file are relative to its folder.
  expect(out.settings['kind-config']!.value).toBe(join(repo, 'ci/kind.yaml'));
  expect(out.settings.settle).toEqual({ value: '90s', source: 'env DEVPKG_SETTLE', env: 'DEVPKG_SETTLE' });
  expect(out.settings.timeout).toEqual({ value: '10m', source: 'default', env: 'DEVPKG_TIMEOUT' });
  expect(out.settings['registry-password']).toEqual({ value: '***', source: 'env DEVPKG_REGISTRY_PASSWORD', env: 'DEVPKG_REGISTRY_PASSWORD' });
  expect(out.settings['registry-image']!.env).toBe('DEVPKG_KIND_REGISTRY_IMAGE');
  expect(out.settings.registry).toEqual({ value: null, source: null, env: 'DEVPKG_REGISTRY' });
  const text = await cli(['config', '--repo', repo], { env: { DEVPKG_SETTLE: '90s' } });
  expect(text.stdout).toContain(`# from ${join(repo, 'devpkg.yaml')}\n`);
  expect(text.stdout).toContain('packages-dir: pkgs  # devpkg.yaml:2\n'.replace('devpkg.yaml', join(repo, 'devpkg.yaml')));
  expect(text.stdout).toContain('settle: 90s  # env DEVPKG_SETTLE\n');
  expect(text.stdout).toContain('working-directory: ' + repo + '  # flag --repo\n');
  expect(text.stdout).toContain('timeout: 10m  # default\n');
});

test('devpkg config --repo names a folder that exists', async () => {
  expect(await cli(['config', '--repo', '/nonexistent/devpkg'])).toEqual({ code: 2, stdout: '', stderr: 'devpkg config: --repo: the folder /nonexistent/devpkg does not exist\n' });
});

describe('where devpkg.yaml is looked for', () => {
  test.each([
    ['the folder itself', ['devpkg.yaml'], '.', 'devpkg.yaml'],
    ['a parent inside the git work tree', ['devpkg.yaml'], 'a/b', 'devpkg.yaml'],
    ['the nearest of several', ['devpkg.yaml', 'a/devpkg.yaml'], 'a/b', 'a/devpkg.yaml'],
    ['not above the git top level', ['devpkg.yaml'], 'git/sub', undefined],
  ])('%s', (_what, files, start, found) => {
    const root = tempDir();
    execFileSync('git', ['init', '-q'], { cwd: root });
    mkdirSync(join(root, 'a/b'), { recursive: true });
    mkdirSync(join(root, 'git/sub'), { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: join(root, 'git') });
    for (const f of files) writeFileSync(join(root, f), 'layout: tce\n');
    expect(findConfigFile(join(root, start))).toBe(found && join(root, found));
  });

  test('outside a git work tree: only the folder itself', () => {
    const root = tempDir();
    mkdirSync(join(root, 'a'));
    writeFileSync(join(root, 'devpkg.yaml'), 'layout: tce\n');
    expect(findConfigFile(join(root, 'a'))).toBeUndefined();
    expect(findConfigFile(root)).toBe(join(root, 'devpkg.yaml'));
  });
});

describe('a key sets the flag its command takes, in the flag\'s form', () => {
  const flags = {
    base: { type: 'string' },
    tanzu: { type: 'string' },
    'skip-host-check': { type: 'boolean' },
    ignore: { type: 'string' },
    'lock-images': { type: 'boolean' },
    'kind-config': { type: 'string' },
  } as const;
  test.each([
    ['base-ref: origin/main\n', {}, { base: 'origin/main' }],
    ['tanzu-cli: bin/tanzu\n', {}, { tanzu: '<dir>/bin/tanzu' }],
    ['host-check: false\n', {}, { 'skip-host-check': true }],
    ['host-check: true\n', {}, { 'skip-host-check': false }],
    ['ignore: ["**/*.md", docs/**]\n', {}, { ignore: '**/*.md,docs/**' }],
    ['kind-config: ci/kind.yaml\n', {}, { 'kind-config': '<dir>/ci/kind.yaml' }],
    ['lock-images: true\n', { DEVPKG_LOCK_IMAGES: 'false' }, { 'lock-images': false }],
    // A key the command has no flag for is left alone; a flag given stays as given.
    ['settle: 90s\ncomment: false\n', {}, {}],
    ['base-ref: origin/main\n', {}, { base: 'given' }, { base: 'given' }],
  ])('%j with %j gives %j', async (file, env, expected, given: Record<string, string> = {}) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'devpkg.yaml'), file);
    const { applyConfig } = await import('./index.js');
    const values: Record<string, string | boolean | undefined> = { ...given };
    applyConfig(values, flags, { env, cwd: dir });
    const want = Object.fromEntries(Object.entries(expected).map(([k, v]) => [k, typeof v === 'string' ? v.replace('<dir>', dir) : v]));
    expect(values).toEqual(want);
  });
});

test.each([
  ['the map plan takes, shared in devpkg.yaml', 'ref-name: antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com\n', [], 'antrea.tanzu.vmware.com'],
  ['a map naming another package: the original stays', 'ref-name: calico.community.tanzu.vmware.com=calico.tanzu.vmware.com\n', [], 'antrea.community.tanzu.vmware.com'],
  ['a bare refName given as a flag over the file', 'ref-name: calico.community.tanzu.vmware.com=calico.tanzu.vmware.com\n', ['--ref-name', 'antrea.example.com'], 'antrea.example.com'],
])('devpkg derive reads ref-name as plan does: %s', async (_what, file, flags, refName) => {
  const repo = repoWithPkgs();
  writeFileSync(join(repo, 'devpkg.yaml'), file);
  const image = `10.89.0.2:5000/devpkg/antrea@sha256:${'e'.repeat(64)}`;
  const r = await cli(['derive', '--from', 'pkgs/antrea/1.5.3/package.yaml', '--image', image, '--dev-version', '1.5.4-dev.3', ...flags], { cwd: repo });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`^  refName: ${refName.replace(/\./g, '\\.')}$`, 'm'));
});

describe('the action\'s kind mode and a shared registry', () => {
  test.each([
    ['kind', {}, undefined],
    ['cluster', {}, { host: 'ghcr.io', path: 'me/dev' }],
    ['plan', {}, { host: 'ghcr.io', path: 'me/dev' }],
    ['kind', { DEVPKG_REGISTRY: 'ghcr.io/env' }, undefined],
  ])('mode %s with registry in devpkg.yaml (env %j): %j', async (mode, env, registry) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'devpkg.yaml'), 'registry: ghcr.io/me/dev\n');
    const { configuredInputs } = await import('./index.js');
    const { parseInputs } = await import('../inputs.js');
    const { inputsFrom } = await import('../../test/support/inputs.js');
    expect(parseInputs(configuredInputs(inputsFrom({ mode }), env, dir)).registry).toEqual(registry);
  });

  test('an input registry in kind mode is still refused', async () => {
    const { configuredInputs } = await import('./index.js');
    const { parseInputs } = await import('../inputs.js');
    const { inputsFrom } = await import('../../test/support/inputs.js');
    expect(() => parseInputs(configuredInputs(inputsFrom({ mode: 'kind', registry: 'ghcr.io/me' }), {}, tempDir()))).toThrow(/^input registry: mode kind pushes/);
  });
});

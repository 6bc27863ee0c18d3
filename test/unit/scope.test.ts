// Issue 35: one repository model. The packages repository may be any folder of a git repository
// (a monorepo): detect and plan read only that scope, name files relative to it, read the tree
// the diff was taken at, refuse the same inputs, and say why nothing changed.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { jest } from '@jest/globals';
import { runCli } from '../../src/cli.js';
import { actionTestScope } from '../support/action-scope.js';
import { runAction as runActionIn } from '../support/run-action.js';

jest.setTimeout(60000);
const dirs = actionTestScope();

const ANTREA = readFileSync(resolve('examples/tce-packages/addons/packages/antrea/1.5.3/package.yaml'), 'utf8');
const SIMPLE_110 = readFileSync(resolve('examples/repository/packages/simple-app.devpkg.example.com/1.1.0.yml'), 'utf8');

function g(dir: string, ...a: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', '-c', 'commit.gpgsign=false', ...a], { cwd: dir, encoding: 'utf8' }).trim();
}

function write(dir: string, files: Record<string, string>): void {
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    writeFileSync(join(dir, f), text);
  }
}

function commit(dir: string, m: string): string {
  g(dir, 'add', '-A');
  g(dir, 'commit', '-qm', m, '--allow-empty');
  return g(dir, 'rev-parse', 'HEAD');
}

type LayoutCase = {
  layout: 'tce' | 'kctrl' | 'repository' | 'plain';
  /** The example copied into <top>/mono, and a decoy of the same layout at the top level. */
  setup: (top: string) => void;
  /** The pull request's edit, inside the scope and in the decoy outside it. */
  edit: (top: string) => void;
  changed: string;
  path: string;
};

const CASES: LayoutCase[] = [
  {
    layout: 'tce',
    setup: (top) => {
      cpSync(resolve('examples/tce-packages'), join(top, 'mono'), { recursive: true });
      write(top, { 'addons/packages/outside/1.0.0/package.yaml': ANTREA.replaceAll('antrea', 'outside').replaceAll('1.5.3', '1.0.0') });
    },
    edit: (top) => {
      write(top, {
        'mono/addons/packages/antrea/1.5.3/bundle/config/values.yaml': '#@data/values\n---\nedited: true\n',
        'addons/packages/outside/1.0.0/bundle/config/values.yaml': 'edited: true\n',
      });
    },
    changed: 'antrea/1.5.3',
    path: 'addons/packages/antrea/1.5.3',
  },
  {
    layout: 'kctrl',
    setup: (top) => {
      cpSync(resolve('examples/kctrl'), join(top, 'mono'), { recursive: true });
      cpSync(resolve('examples/kctrl/simple-app'), join(top, 'decoy'), { recursive: true });
    },
    edit: (top) => {
      write(top, {
        'mono/simple-app/config/values.yml': '#@data/values\n---\nnamespace: default\ngreeting: edited\n',
        'decoy/config/values.yml': '#@data/values\n---\nnamespace: default\ngreeting: edited\n',
      });
    },
    changed: 'simple-app/0.0.0',
    path: 'simple-app',
  },
  {
    layout: 'repository',
    setup: (top) => {
      cpSync(resolve('examples/repository'), join(top, 'mono'), { recursive: true });
      cpSync(resolve('examples/repository/packages'), join(top, 'packages'), { recursive: true });
    },
    edit: (top) => {
      const v120 = SIMPLE_110.replaceAll('1.1.0', '1.2.0').replace(/0000110$/m, '0000120');
      write(top, {
        'mono/packages/simple-app.devpkg.example.com/1.2.0.yml': v120,
        'packages/simple-app.devpkg.example.com/1.3.0.yml': v120.replaceAll('1.2.0', '1.3.0'),
      });
    },
    changed: 'simple-app/1.2.0',
    path: 'packages/simple-app.devpkg.example.com/1.2.0.yml',
  },
  {
    layout: 'plain',
    setup: (top) => {
      cpSync(resolve('examples/plain'), join(top, 'mono'), { recursive: true });
      cpSync(resolve('examples/plain/packages'), join(top, 'packages'), { recursive: true });
    },
    edit: (top) => {
      write(top, {
        'mono/packages/hello/1.0.0/bundle/config/config.yml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\ndata:\n  greeting: edited\n',
        'packages/hello/1.0.0/bundle/config/config.yml': 'edited: true\n',
      });
    },
    changed: 'hello/1.0.0',
    path: 'packages/hello/1.0.0',
  },
];

/** A git repository whose packages are in its subfolder `mono`; returns the top and the base commit. */
function monorepo(c: LayoutCase): { top: string; base: string; head: string } {
  const top = mkdtempSync(join(tmpdir(), `devpkg-mono-${c.layout}-`));
  dirs.push(top);
  g(top, 'init', '-q', '-b', 'main');
  write(top, { 'README.md': 'a monorepo\n' });
  c.setup(top);
  const base = commit(top, 'base');
  c.edit(top);
  const head = commit(top, 'change');
  return { top, base, head };
}

function cliIO(cwd = process.cwd()) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), env: process.env, cwd } };
}

describe.each(CASES)('monorepo, $layout layout in a subfolder', (c) => {
  test('devpkg plan --repo SUBFOLDER --base: the changed package, named from the scope', async () => {
    const { top, base } = monorepo(c);
    const t = cliIO();
    const code = await runCli(['plan', '--repo', join(top, 'mono'), '--base', base, '--json'], t.io);
    const json = JSON.parse(t.out.join(''));
    expect(json.problems.filter((p: { severity: string }) => p.severity === 'error')).toEqual([]);
    expect(code).toBe(0);
    expect(json.packages.map((p: { name: string; version: string; path: string }) => `${p.name}/${p.version} ${p.path}`)).toEqual([`${c.changed} ${c.path}`]);
    expect(json.scope).toMatchObject({ prefix: 'mono', tree: 'the working tree' });
  });

  test('devpkg detect --repo SUBFOLDER reads only the subfolder, as plan does (--base and --all)', async () => {
    const { top, base } = monorepo(c);
    const d = cliIO();
    expect(await runCli(['detect', '--repo', join(top, 'mono'), '--base', base, '--json'], d.io)).toBe(0);
    const detected = JSON.parse(d.out.join(''));
    expect(detected.packages.map((p: { name: string; version: string; path: string }) => `${p.name}/${p.version} ${p.path}`)).toEqual([`${c.changed} ${c.path}`]);
    const all = cliIO();
    expect(await runCli(['detect', '--repo', join(top, 'mono'), '--all', '--json'], all.io)).toBe(0);
    const planAll = cliIO();
    await runCli(['plan', '--repo', join(top, 'mono'), '--all', '--json'], planAll.io);
    const listed = JSON.parse(all.out.join('')).packages.map((p: { path: string }) => p.path);
    expect(listed.every((p: string) => !p.startsWith('mono/') && !p.includes('outside') && !p.startsWith('decoy'))).toBe(true);
    expect(listed).toEqual(JSON.parse(planAll.out.join('')).packages.map((p: { path: string }) => p.path));
  });

  test('action plan and detect modes with working-directory a subfolder: paths named once from the workspace', async () => {
    const { top, base, head } = monorepo(c);
    for (const mode of ['plan', 'detect']) {
      const { outputs, printed } = await runAction(top, { INPUT_MODE: mode, 'INPUT_WORKING-DIRECTORY': 'mono', 'INPUT_BASE-REF': base, 'INPUT_HEAD-REF': head });
      expect(printed).not.toMatch(/mono\/mono\//);
      expect(printed).not.toMatch(/::error/);
      const packages = JSON.parse(outputs.packages!);
      expect(packages.map((p: { name: string; version: string; path: string }) => `${p.name}/${p.version} ${p.path}`)).toEqual([`${c.changed} ${c.path}`]);
      expect(outputs.result).toBe('success');
    }
  });
});

const runAction = (workspace: string, inputs: Record<string, string>) => runActionIn(dirs, workspace, inputs);

describe('which tree is read', () => {
  test('plan --base B --head C with B checked out reads C (the commit the diff was taken at), and says so', async () => {
    const c = CASES[2]!;
    const { top, base, head } = monorepo(c);
    // The working tree is at the base: the changed Package is only in the head commit.
    g(top, 'checkout', '-q', base);
    const t = cliIO();
    const code = await runCli(['plan', '--repo', join(top, 'mono'), '--base', base, '--head', head, '--json'], t.io);
    const json = JSON.parse(t.out.join(''));
    expect(json.problems).toEqual([]);
    expect(code).toBe(0);
    expect(json.scope.tree).toBe(`commit ${head.slice(0, 12)}`);
    expect(json.packages.map((p: { name: string; version: string; path: string }) => `${p.name}/${p.version} ${p.path}`)).toEqual([`${c.changed} ${c.path}`]);
    const text = cliIO();
    await runCli(['plan', '--repo', join(top, 'mono'), '--base', base, '--head', head], text.io);
    expect(text.out.join('')).toContain(`Read commit ${head.slice(0, 12)} of mono.`);
  });
});

describe('detect and plan refuse the same inputs', () => {
  test('--released-version v1.0 is bad usage in both', async () => {
    const { top } = monorepo(CASES[1]!);
    for (const cmd of ['plan', 'detect']) {
      const t = cliIO();
      expect(await runCli([cmd, '--repo', join(top, 'mono'), '--all', '--released-version', 'v1.0'], t.io)).toBe(2);
      expect(t.err.join('')).toMatch(/--released-version/);
    }
  });

  test('a folder with no package: both say "no packages found" and exit 1', async () => {
    const top = mkdtempSync(join(tmpdir(), 'devpkg-empty-'));
    dirs.push(top);
    g(top, 'init', '-q', '-b', 'main');
    write(top, { 'README.md': 'nothing\n' });
    commit(top, 'x');
    for (const cmd of ['plan', 'detect']) {
      const t = cliIO();
      expect(await runCli([cmd, '--repo', top, '--all'], t.io)).toBe(1);
      expect(t.err.join('')).toMatch(/no packages found/);
    }
  });
});

describe('a forced layout or packages-dir that finds nothing is an error, never "nothing changed"', () => {
  test.each([
    [['--packages-dir', 'repo/pakages', '--layout', 'tce'], /layout tce \(the layout input, --layout\) found no package in .*repo\/pakages\/<name>\/<version>\/package.yaml/],
    [['--layout', 'tce'], /layout tce \(the layout input, --layout\) found no package .*what is there: kctrl: 1 folder \(simple-app\)/],
    [['--packages-dir', 'repo/pakages'], /packages-dir repo\/pakages \(--packages-dir\) found no package .*what is there: kctrl: 1 folder \(simple-app\)/],
  ])('%j on a kctrl repository: exit 1 in plan and detect', async (flags, message) => {
    const { top, base } = monorepo(CASES[1]!);
    for (const cmd of ['plan', 'detect']) {
      const t = cliIO();
      expect(await runCli([cmd, '--repo', join(top, 'mono'), '--base', base, ...flags], t.io)).toBe(1);
      expect(t.err.join('')).toMatch(message);
      expect(t.out.join('')).not.toMatch(/No package versions changed/);
    }
  });

  test('the action: result failure, not skipped, in plan and detect modes', async () => {
    const { top, base, head } = monorepo(CASES[1]!);
    for (const mode of ['plan', 'detect']) {
      const { printed, outputs } = await runAction(top, { INPUT_MODE: mode, 'INPUT_WORKING-DIRECTORY': 'mono', INPUT_LAYOUT: 'tce', 'INPUT_BASE-REF': base, 'INPUT_HEAD-REF': head });
      expect(process.exitCode).toBe(1);
      expect(printed).toMatch(/::error::layout tce \(the layout input, --layout\) found no package/);
      expect(outputs.result).toBe('failure');
    }
  });
});

describe('"nothing changed" explains itself', () => {
  test('plan and detect: the range diffed, files changed and ignored by which glob, the package folders in scope', async () => {
    const c = CASES[0]!;
    const { top, head } = monorepo(c);
    write(top, { 'mono/addons/packages/antrea/README.md': 'docs\n', 'mono/addons/packages/antrea/1.5.3/NOTES.md': 'notes\n' });
    const docs = commit(top, 'docs only');
    const t = cliIO();
    expect(await runCli(['plan', '--repo', join(top, 'mono'), '--base', head, '--head', docs], t.io)).toBe(0);
    const text = t.out.join('');
    expect(text).toContain('No package versions changed.');
    expect(text).toContain(`diffed ${head.slice(0, 12)}..${docs.slice(0, 12)}: 2 file(s) changed in mono of ${top}`);
    expect(text).toContain('(2 ignored by **/*.md)');
    expect(text).toContain('package folders in scope: 2 (addons/packages/antrea/1.5.3, addons/packages/calico/3.22.1)');
    const j = cliIO();
    expect(await runCli(['plan', '--repo', join(top, 'mono'), '--base', head, '--head', docs, '--json'], j.io)).toBe(0);
    expect(JSON.parse(j.out.join('')).scope.diff).toMatchObject({ files: 2, ignored: [{ glob: '**/*.md', files: 2 }] });
    const d = cliIO();
    expect(await runCli(['detect', '--repo', join(top, 'mono'), '--base', head, '--head', docs], d.io)).toBe(0);
    expect(d.out.join('')).toBe('');
    expect(d.err.join('')).toContain('devpkg detect: diffed');
    expect(d.err.join('')).toContain('(2 ignored by **/*.md)');
  });

  test('the action plan mode: the log and the job summary say it', async () => {
    const c = CASES[0]!;
    const { top, head } = monorepo(c);
    write(top, { 'mono/addons/packages/antrea/README.md': 'docs\n' });
    const docs = commit(top, 'docs only');
    const { printed, summary, outputs } = await runAction(top, { INPUT_MODE: 'plan', 'INPUT_WORKING-DIRECTORY': 'mono', 'INPUT_BASE-REF': head, 'INPUT_HEAD-REF': docs });
    expect(outputs.result).toBe('skipped');
    expect(printed).toContain('1 file(s) changed in mono of');
    expect(printed).toContain('(1 ignored by **/*.md)');
    expect(summary).toContain('1 ignored by \\*\\*/\\*.md');
    expect(summary).toContain('package folders in scope: 2');
  });
});

/** No ytt (or any tool but git) anywhere: not on PATH (only git is), not in an empty tool cache under `work`. */
function onlyGitOnPath(work: string): void {
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const gitPath = (process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'git')).find((p) => existsSync(p));
  symlinkSync(gitPath!, join(bin, 'git'));
  Object.assign(process.env, { PATH: bin, RUNNER_TOOL_CACHE: join(work, 'tool-cache') });
}

describe('kind mode checks every tool the planned packages\' layouts need before anything starts', () => {
  test('a kctrl package and no ytt: refused naming ytt, and no kind cluster is created', async () => {
    const { failingKindTools } = await import('../support/kind-tools.js');
    const { RecordingHost } = await import('../../src/action/host.js');
    const { parseInputs } = await import('../../src/inputs.js');
    const { inputsFrom } = await import('../support/inputs.js');
    const { run } = await import('../../src/modes/kind.js');
    const { top } = monorepo(CASES[1]!);
    const work = mkdtempSync(join(tmpdir(), 'devpkg-scope-kind-'));
    dirs.push(work);
    writeFileSync(join(top, 'mono/kapp-controller.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n');
    onlyGitOnPath(work);
    const t = failingKindTools('kind create must not be reached\n');
    const inputs = parseInputs(
      inputsFrom({ mode: 'kind', 'working-directory': 'mono', all: 'true', 'push-command': 'true', 'kapp-controller-manifest': 'kapp-controller.yml', comment: 'false' }),
    );
    const host = new RecordingHost();
    const github = {
      eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '9', runNumber: 9, runAttempt: 1,
      serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: top,
    };
    const err = await run({ inputs, github, host, exec: t.exec, env: { RUNNER_TEMP: work }, resultsDir: join(work, 'results'), install: { refuse: true } }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const doc = JSON.parse(readFileSync(join(work, 'results', 'results.json'), 'utf8')) as { results: Array<{ name: string; verdict: string; reason?: string }> };
    expect(doc.results.map((r) => `${r.name} ${r.verdict}`)).toEqual(['simple-app error']);
    expect(doc.results[0]!.reason).toMatch(/mode kind cannot start/);
    expect(doc.results[0]!.reason).toMatch(/- ytt: not on PATH/);
    expect(t.calls.some((c) => c.join(' ').includes('create cluster'))).toBe(false);
  });
});

describe('cluster mode checks every tool the planned packages\' layouts need before it asks the cluster anything', () => {
  test('a kctrl package and no ytt: refused naming ytt; the API server is never asked', async () => {
    const { createServer } = await import('node:http');
    const { RecordingHost } = await import('../../src/action/host.js');
    const { parseInputs } = await import('../../src/inputs.js');
    const { inputsFrom } = await import('../support/inputs.js');
    const { execTool } = await import('../../src/tools/exec.js');
    const { run } = await import('../../src/modes/cluster.js');
    // The cluster: an API server that records every request (and answers none usefully).
    const requests: string[] = [];
    const server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      const { top } = monorepo(CASES[1]!);
      const work = mkdtempSync(join(tmpdir(), 'devpkg-scope-cluster-'));
      dirs.push(work);
      const kubeconfig = join(work, 'kubeconfig');
      writeFileSync(
        kubeconfig,
        [
          'apiVersion: v1', 'kind: Config', 'current-context: t',
          `clusters: [{name: t, cluster: {server: "http://127.0.0.1:${port}"}}]`,
          'users: [{name: t, user: {token: x}}]',
          'contexts: [{name: t, context: {cluster: t, user: t}}]', '',
        ].join('\n'),
      );
      onlyGitOnPath(work);
      const calls: string[][] = [];
      const exec: typeof execTool = (path, args, o) => {
        calls.push([path, ...args]);
        return execTool(path, args, o);
      };
      // released-version given: the released version is not looked up in the cluster either.
      const inputs = parseInputs(
        inputsFrom({ mode: 'cluster', 'working-directory': 'mono', all: 'true', kubeconfig, registry: 'registry.example.invalid/dev', 'released-version': '1.0.0', comment: 'false' }),
      );
      const host = new RecordingHost();
      const github = {
        eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '9', runNumber: 9, runAttempt: 1,
        serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: top,
      };
      const err = await run({ inputs, github, host, exec, env: { RUNNER_TEMP: work }, resultsDir: join(work, 'results'), install: { refuse: true } }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      const doc = JSON.parse(readFileSync(join(work, 'results', 'results.json'), 'utf8')) as { results: Array<{ name: string; verdict: string; reason?: string }> };
      expect(doc.results.map((r) => `${r.name} ${r.verdict}`)).toEqual(['simple-app error']);
      expect(doc.results[0]!.reason).toMatch(/mode cluster cannot start/);
      expect(doc.results[0]!.reason).toMatch(/- ytt: not on PATH/);
      expect(requests).toEqual([]);
      // Nothing but git ran (no push, no ytt, no imgpkg).
      expect(calls.filter((c) => !c[0]!.endsWith('git'))).toEqual([]);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

test('kind mode with nothing changed: the log and the report say which range, files and globs, before any tool is asked for', async () => {
  const { RecordingHost } = await import('../../src/action/host.js');
  const { parseInputs } = await import('../../src/inputs.js');
  const { inputsFrom } = await import('../support/inputs.js');
  const { run } = await import('../../src/modes/kind.js');
  const { top, head } = monorepo(CASES[0]!);
  write(top, { 'mono/addons/packages/antrea/README.md': 'docs\n' });
  const docs = commit(top, 'docs only');
  const work = mkdtempSync(join(tmpdir(), 'devpkg-scope-kind-nothing-'));
  dirs.push(work);
  const calls: string[] = [];
  const inputs = parseInputs(inputsFrom({ mode: 'kind', 'working-directory': 'mono', 'base-ref': head, 'head-ref': docs, comment: 'false' }));
  const host = new RecordingHost();
  const github = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '9', runNumber: 9, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: top,
  };
  const { execTool } = await import('../../src/tools/exec.js');
  await run({ inputs, github, host, exec: async (cmd, args, o) => (calls.push(cmd), execTool(cmd, args, o)), env: { RUNNER_TEMP: work }, resultsDir: join(work, 'results') });
  expect(host.outputs.result).toBe('skipped');
  expect(host.logs.join('\n')).toContain('1 file(s) changed in mono of');
  expect(host.summaries.join('\n')).toContain('1 ignored by \\*\\*/\\*.md');
  expect(calls.filter((c) => c !== 'git')).toEqual([]);
});

test('devpkg dev and bootstrap: a version folder named by hand is loaded through the layouts', async () => {
  const { openVersionFolder } = await import('../../src/commands/scope.js');
  const { loaded, root } = await openVersionFolder(resolve('examples/tce-packages/addons/packages/antrea/1.5.3'), '--package');
  expect(root).toBe(resolve('examples/tce-packages/addons/packages'));
  expect([loaded.name, loaded.version, loaded.path, loaded.layout, loaded.bootstrap]).toEqual(['antrea', '1.5.3', 'antrea/1.5.3', 'tce', { folder: 'antrea/1.5.3', config: 'antrea/1.5.3/bundle/config' }]);
  expect(loaded.notes[0]).toMatch(/^layout tce/);
  await expect(openVersionFolder(resolve('examples/tce-packages/addons/packages/antrea'), '--package')).rejects.toThrow(/--package: .* is a package folder, not a version folder/);
});

test('cluster and kind mode ask the planned packages\' layouts which tools to check (data, not layout names)', async () => {
  const { toolNeeds } = await import('../../src/pipeline/steps.js');
  const { RecordingHost } = await import('../../src/action/host.js');
  const { parseInputs } = await import('../../src/inputs.js');
  const { inputsFrom } = await import('../support/inputs.js');
  const ctx = (values: Record<string, string>) => ({ inputs: parseInputs(inputsFrom({ mode: 'cluster', registry: 'r.example.invalid/x', ...values })), host: new RecordingHost() });
  const names = (values: Record<string, string>, tools: string[]) => toolNeeds(ctx(values), {}, tools).map((n) => n.what);
  expect(names({}, [])).toEqual(['imgpkg']);
  expect(names({ 'push-command': 'make push' }, ['ytt', 'kbld'])).toEqual(['ytt', 'kbld']);
  expect(names({ 'lock-images': 'true' }, ['kbld', 'ytt'])).toEqual(['imgpkg', 'kbld', 'ytt']);
  // A tool devpkg cannot install is still checked on PATH and named.
  const other = toolNeeds(ctx({ 'push-command': 'true' }), {}, ['no-such-tool-devpkg']);
  expect(await other[0]!.missing()).toBe('not on PATH');
  expect(other[0]!.install).toBeUndefined();
  // What plan hands over: the kctrl example builds with ytt (and kbld when useKbldImagesLock).
  const { plan } = await import('../../src/pipeline/plan.js');
  const out = await plan({ root: resolve('examples/kctrl'), packagesDir: 'addons/packages', selection: { kind: 'all' }, refName: '', seq: { timestamp: new Date('2026-01-01T00:00:00Z') } });
  expect(out.tools).toContain('ytt');
});

// Issue 29: kind mode on a kctrl-authored package (examples/kctrl, a ConfigMap), on the kind
// harness: devpkg builds the package from the base ref as the baseline (the released version from
// the git tag), then the pull request's build as the dev version, and verifies it wins.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecordingHost } from '../../src/action/host.js';
import { readGithubContext } from '../../src/action/context.js';
import { CLEANUP_STATE, CleanupList } from '../../src/cleanup.js';
import { parseInputs } from '../../src/inputs.js';
import { run as runKindMode } from '../../src/modes/kind.js';
import { runPost } from '../../src/post.js';
import { execTool } from '../../src/tools/exec.js';
import type { PackageResult } from '../../src/results.js';
import { inputsFrom } from '../support/inputs.js';
import { repoRoot, runTool } from './helpers/run.js';

const T = 1_800_000;
const savedEnv = { ...process.env };
const work = mkdtempSync(join(tmpdir(), 'devpkg-kind-layouts-'));
const repo = join(work, 'repo');
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t.invalid', ...args], { cwd: repo, encoding: 'utf8' }).trim();
let machine: Record<string, string> = {};
let base = '';
let head = '';

beforeAll(async () => {
  const r = await runTool('bash', [join(repoRoot, 'test', 'harness', 'kind.sh'), 'up'], { cwd: repoRoot, timeoutMs: 1_800_000 });
  const env: Record<string, string> = {};
  for (const m of r.stdout.matchAll(/^export ([A-Za-z_][A-Za-z0-9_]*)='((?:[^']|'\\'')*)'$/gm)) env[m[1]!] = m[2]!.replace(/'\\''/g, "'");
  Object.assign(process.env, env);
  machine = {
    'kind-node-image': env.DEVPKG_KIND_NODE_IMAGE!,
    'kind-config': env.DEVPKG_KIND_CONFIG!,
    'registry-image': env.DEVPKG_KIND_REGISTRY_IMAGE!,
    'kapp-controller-manifest': env.DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST!,
  };
  cpSync(join(repoRoot, 'examples', 'kctrl'), repo, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'simple-app released');
  git('tag', 'v1.0.0');
  base = git('rev-parse', 'HEAD');
  writeFileSync(join(repo, 'simple-app/config/values.yml'), '#@data/values\n---\nnamespace: default\ngreeting: hello from the pull request\n');
  git('commit', '-qam', 'simple-app: a new greeting');
  head = git('rev-parse', 'HEAD');
}, T);

afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  rmSync(work, { recursive: true, force: true });
});

test('mode kind, kctrl layout: the baseline built from the base ref, then the pull request\'s build wins', async () => {
  const host = new RecordingHost();
  const temp = mkdtempSync(join(work, 'runner-temp-'));
  const ctx = {
    inputs: parseInputs(inputsFrom({ mode: 'kind', layout: 'auto', 'base-ref': base, 'head-ref': head, settle: '5s', timeout: '5m', comment: 'false', ...machine })),
    github: { ...readGithubContext({}), workspace: repo, runId: 'kctrlwin', runNumber: 1 },
    host,
    exec: execTool,
    env: { ...process.env, RUNNER_TEMP: temp },
  };
  try {
    await runKindMode(ctx);
    const results = JSON.parse(host.outputs.results!) as PackageResult[];
    expect(results).toHaveLength(1);
    const r = results[0]!;
    expect(r).toMatchObject({ name: 'simple-app', version: '1.0.0', refName: 'simple-app.devpkg.example.com', mode: 'kind', verdict: 'won', releasedVersion: '1.0.0' });
    expect(r.devVersion).toMatch(/^1\.0\.1-dev\./);
    expect(r.phases?.map((p) => p.name)).toEqual(['kind cluster', 'registry', 'kapp-controller', 'baseline simple-app 1.0.0', 'dev Package applied', 'won']);
    const kubeconfig = CleanupList.fromState(host.getState(CLEANUP_STATE)).find((i) => i.kind === 'kind-cluster')?.kubeconfig;
    const kubectl = (...args: string[]) => runTool('kubectl', ['--kubeconfig', kubeconfig!, ...args]).then((x) => x.stdout.trim());
    expect(await kubectl('get', 'configmap', '-n', 'default', 'simple-app', '-o', 'jsonpath={.data.greeting}')).toBe('hello from the pull request');
    expect(host.logs.join('\n')).toContain('layout kctrl (recognised by its files: simple-app)');
  } finally {
    await runPost(host);
  }
}, T);

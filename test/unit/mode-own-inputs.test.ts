// Issue 35: every input kind mode documents changes what kind mode does (its own inputs; the
// plan-request ones are proven mode by mode in action-inputs.test.ts). Kind mode runs in process
// with kind and docker stood in by a recorder whose `kind create` fails, and tool downloads going
// to a release stand-in that has nothing: what the run does before it has a cluster (every
// command with its arguments, the kind config it wrote, the downloads it tried, its warnings,
// errors and outputs) must change with each input. The inputs that act only once a cluster is up
// are named with the kind-mode integration test that uses them.
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import { RecordingHost } from '../../src/action/host.js';
import type { GithubContext } from '../../src/action/context.js';
import { parseInputs } from '../../src/inputs.js';
import { run as kindMode } from '../../src/modes/kind.js';
import type { ExecFn } from '../../src/tools/exec.js';
import { actionTestScope } from '../support/action-scope.js';
import { inputsFrom } from '../support/inputs.js';
import { failingKindTools } from '../support/kind-tools.js';
import { releaseServerForFile } from '../support/release-server.js';

const dirs = actionTestScope();
const server = releaseServerForFile();
const ACTION = parse(readFileSync(resolve('action.yml'), 'utf8')) as { inputs: Record<string, { description: string }> };

/** Inputs kind mode documents besides its `kind mode:` ones (README "Inputs"), not read through the plan request. */
const KIND_ALSO = ['registry-username', 'registry-password', 'push-command', 'push-timeout', 'lock-images', 'settle', 'timeout', 'assert', 'imgpkg-version', 'imgpkg-sha256', 'kbld-version', 'kbld-sha256', 'tool-checksums', 'artifact-name'];

/** Each with a value that must change what kind mode does before its cluster is up (`with`: the other inputs it needs to act). */
const BEFORE_CLUSTER: Record<string, { value: string; with?: Record<string, string> }> = {
  'kind-version': { value: 'v0.32.0' },
  'kind-sha256': { value: 'b'.repeat(64) },
  'kind-node-image': { value: 'example.invalid/node:v1' },
  'kind-config': { value: 'kind.yaml' },
  'registry-image': { value: 'example.invalid/registry:2' },
  'kapp-controller-version': { value: 'v0.50.0' },
  'kapp-controller-manifest': { value: 'no-such-manifest.yml' },
  'kapp-controller-sha256': { value: 'c'.repeat(64) },
  // Never sent: a warning says so.
  'registry-username': { value: 'me' },
  'registry-password': { value: 'secret' },
  // Without it imgpkg pushes, so imgpkg is needed.
  'push-command': { value: '' },
  'lock-images': { value: 'true' },
  'imgpkg-version': { value: 'v0.48.2', with: { 'push-command': '' } },
  'imgpkg-sha256': { value: 'd'.repeat(64), with: { 'push-command': '' } },
  'kbld-version': { value: 'v0.41.0', with: { 'lock-images': 'true' } },
  'kbld-sha256': { value: 'e'.repeat(64), with: { 'lock-images': 'true' } },
  'tool-checksums': { value: 'no-such-sums.txt' },
  'artifact-name': { value: 'other-results' },
};

/** Inputs that act once the cluster is up, and the kind-mode integration test that shows each acting. */
const ONCE_CLUSTER_UP: Record<string, { file: string; shows: RegExp }> = {
  // SIGINT in the settle window: "won; holding for the 300s settle window".
  settle: { file: 'test/integration/kind-mode.test.ts', shows: /'--settle', '300s'[\s\S]*holding for the 300s settle window/ },
  // The assertions' results in the won result.
  assert: { file: 'test/integration/kind-mode.test.ts', shows: /actionRun\(\{ assert \}[\s\S]*r\.assertions/ },
};

/**
 * Not yet shown acting in kind mode by a test of kind mode: both reach it through the code cluster
 * mode shares (pipeline/steps.ts: the verify's limit; the push's limit), where
 * test/integration/faults.test.ts and src/verify/verifier.flow.test.ts show them acting.
 */
const NOT_YET_IN_KIND = ['timeout', 'push-timeout'];

function workspace() {
  const work = mkdtempSync(join(tmpdir(), 'devpkg-own-'));
  dirs.push(work);
  const repo = join(work, 'repo');
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  writeFileSync(join(repo, 'kapp-controller.yml'), 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n');
  writeFileSync(join(repo, 'kind.yaml'), 'kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n  labels: {devpkg.test/own: "1"}\n');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  return { work, repo };
}

/** What kind mode does with these inputs until its cluster would be there, with the run's random names, times and folders made alike. */
async function kindDoes(values: Record<string, string>): Promise<string> {
  const { work, repo } = workspace();
  server.reset();
  const host = new RecordingHost();
  const t = failingKindTools('ERROR: failed to create cluster: stand-in\n');
  const calls: string[][] = [];
  const exec: ExecFn = async (p, args, o) => {
    const config = args[0] === 'create' ? args.indexOf('--config') : -1;
    calls.push([p, ...args, ...(config > 0 ? [readFileSync(args[config + 1]!, 'utf8')] : [])]);
    return t.exec(p, args, o);
  };
  const github: GithubContext = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '4242', runNumber: 7, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: repo,
  };
  let err = '';
  try {
    const inputs = parseInputs(inputsFrom({ mode: 'kind', packages: 'antrea/1.5.3', comment: 'false', ...values }));
    await kindMode({ inputs, github, host, exec, env: { RUNNER_TEMP: work }, install: { github: server.url } });
  } catch (e) {
    err = (e as Error).message;
  }
  return JSON.stringify({ err, calls, downloads: [...server.requests], warnings: host.warnings, errors: host.errors, outputs: host.outputs })
    .replaceAll(work, 'WORK')
    .replaceAll(server.url, 'SERVER')
    .replace(/devpkg-4242[0-9a-z]{6}-1/g, 'CLUSTER')
    .replace(/\/tmp\/devpkg-[^/"\\]+/g, 'TMP')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
    .replace(/(pid(-start)?=)\d+/g, '$1N');
}

test('every input kind mode documents is placed: shown acting before the cluster here, or once it is up by a named kind-mode test', () => {
  const documented = [...Object.keys(ACTION.inputs).filter((i) => ACTION.inputs[i]!.description.startsWith('kind mode:')), ...KIND_ALSO];
  const placed = new Set([...Object.keys(BEFORE_CLUSTER), ...Object.keys(ONCE_CLUSTER_UP), ...NOT_YET_IN_KIND]);
  expect(documented.filter((i) => !placed.has(i))).toEqual([]);
  expect([...placed].filter((i) => !documented.includes(i))).toEqual([]);
  for (const i of KIND_ALSO) expect(Object.keys(ACTION.inputs)).toContain(i);
  for (const [input, { file, shows }] of Object.entries(ONCE_CLUSTER_UP)) {
    expect({ input, file, exists: existsSync(resolve(file)) }).toEqual({ input, file, exists: true });
    expect({ input, shows: shows.test(readFileSync(resolve(file), 'utf8')) }).toEqual({ input, shows: true });
  }
});

test('each input kind mode reads before its cluster is up changes what it does', async () => {
  const base = { 'kapp-controller-manifest': 'kapp-controller.yml', 'push-command': 'true' };
  const same: string[] = [];
  const controls = new Map<string, string>();
  for (const [input, { value, with: also = {} }] of Object.entries(BEFORE_CLUSTER)) {
    const key = JSON.stringify(also);
    if (!controls.has(key)) {
      const before = await kindDoes({ ...base, ...also });
      // The control: the same inputs do the same (so a difference is the input's doing).
      expect(await kindDoes({ ...base, ...also })).toBe(before);
      controls.set(key, before);
    }
    if ((await kindDoes({ ...base, ...also, [input]: value })) === controls.get(key)) same.push(input);
  }
  expect(same).toEqual([]);
}, 120_000);

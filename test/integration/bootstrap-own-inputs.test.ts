// Issue 35: every input bootstrap mode documents changes what bootstrap mode does. The mode runs in
// process with the real ytt and the tanzu CLI's stand-in (test/standin/tanzu/tanzu: its
// `management-cluster create --dry-run` renders the providers folder devpkg prepared with ytt), up
// to and past `management-cluster create`, which is played here: it takes `createSeconds`, then
// succeeds, and `management-cluster kubeconfig get --admin` hands over an empty API server on which
// phase 1 never shows, so every run ends timed-out at `timeout` (or earlier, where an input stops it).
// The registry is a stand-in too (every tag at one digest); docker never answers (the host check
// and the leftovers probe see no daemon, and kind no cluster). What is compared: every command with its arguments and
// environment (and the cluster config each tanzu call was given), the downloads, the requests to the
// API server, warnings, errors and outputs. The inputs that act only after a win are named with
// the bootstrap integration test that shows each acting.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parse } from 'yaml';
import { RecordingHost } from '../../src/action/host.js';
import type { GithubContext } from '../../src/action/context.js';
import { parseInputs } from '../../src/inputs.js';
import { run as bootstrapMode } from '../../src/modes/bootstrap.js';
import { execTool, type ExecFn } from '../../src/tools/exec.js';
import { inputsFrom } from '../support/inputs.js';
import { inputsWithoutEffect } from '../support/own-inputs.js';
import { releaseServerForFile } from '../support/release-server.js';
import { emptyApiServer, standInRegistry } from '../support/standin-servers.js';
import { PROVIDERS_FIXTURE, STANDIN, workspace } from './helpers/bootstrap.js';

const T = 600_000;
const server = releaseServerForFile();
const ACTION = parse(readFileSync(resolve('action.yml'), 'utf8')) as { inputs: Record<string, { description: string }> };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Inputs bootstrap mode documents besides its `bootstrap mode:` ones (README "Inputs"). */
const BOOTSTRAP_ALSO = [
  'registry', 'registry-username', 'registry-password', 'ref-name', 'push-command', 'push-timeout', 'lock-images', 'dev-version',
  'settle', 'timeout', 'assert', 'imgpkg-version', 'imgpkg-sha256', 'kbld-version', 'kbld-sha256', 'tool-checksums', 'artifact-name',
];

/** Which tools are on PATH: the harness's (all of them), ytt alone, ytt and a stand-in imgpkg, or none. */
type Tools = 'harness' | 'ytt' | 'ytt+imgpkg-standin' | 'none';

interface Case {
  value: string;
  /** The other inputs it needs to act. */
  with?: Record<string, string>;
  tools?: Tools;
  /** How long the played `management-cluster create` runs. */
  createSeconds?: number;
  /** What the change must show. */
  shows?: RegExp;
}

const MIRROR = 'mirror.example.invalid/tkg';
/** Each input with a value that must change what bootstrap mode does here. */
const HERE: Record<string, Case> = {
  'tanzu-cli': { value: 'other/tanzu', shows: /"WORK\/repo\/other\/tanzu","management-cluster","create"/ },
  'tanzu-cli-url': { value: 'SERVER/tanzu-cli.tar.gz', with: { 'tanzu-cli': '', 'tanzu-cli-sha256': 'f'.repeat(64) }, tools: 'ytt', shows: /"downloads":\["\/tanzu-cli\.tar\.gz"/ },
  'tanzu-cli-sha256': { value: 'a'.repeat(64), with: { 'tanzu-cli': '', 'tanzu-cli-url': 'SERVER/tanzu-cli.tar.gz' }, tools: 'ytt', shows: /"downloads":\["\/tanzu-cli\.tar\.gz"/ },
  'tanzu-dir': { value: 'other/.config/tanzu', shows: /"HOME":"WORK\/repo\/other"/ },
  'cluster-config': { value: 'other-mgmt.yaml', shows: /CLUSTER_NAME: other-mgmt/ },
  'addon-type': { value: 'cni/calico', shows: /calico/ },
  'bootstrap-timeout': { value: '1s', createSeconds: 3, shows: /tanzu management-cluster create did not finish within 1s \(bootstrap-timeout/ },
  'host-check': { value: 'true', shows: /host-check: false/ },
  'tkg-custom-image-repository': { value: MIRROR, shows: /TKG_CUSTOM_IMAGE_REPOSITORY: mirror\.example\.invalid\/tkg/ },
  'tkg-custom-image-repository-skip-tls-verify': { value: 'true', with: { 'tkg-custom-image-repository': MIRROR }, shows: /TKG_CUSTOM_IMAGE_REPOSITORY_SKIP_TLS_VERIFY: true/ },
  'tkg-custom-image-repository-ca-certificate': { value: '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUabc\n-----END CERTIFICATE-----', with: { 'tkg-custom-image-repository': MIRROR }, shows: /TKG_CUSTOM_IMAGE_REPOSITORY_CA_CERTIFICATE: / },
  'ytt-version': { value: 'v0.45.0', with: { 'ytt-sha256': 'b'.repeat(64) }, tools: 'none', shows: /v0\.45\.0/ },
  'ytt-sha256': { value: 'b'.repeat(64), with: { 'ytt-version': 'v0.45.0' }, tools: 'none', shows: /ytt\/releases\/download\/v0\.45\.0\// },
  registry: { value: 'REGISTRY/elsewhere', shows: /REGISTRY\/elsewhere\/antrea/ },
  'registry-username': { value: 'me', with: { 'push-command': '', 'registry-password': 'secret' }, tools: 'ytt+imgpkg-standin', shows: /"IMGPKG_REGISTRY_USERNAME_\d+":"me"/ },
  'registry-password': { value: 'other-secret', with: { 'push-command': '', 'registry-username': 'me' }, tools: 'ytt+imgpkg-standin', shows: /"IMGPKG_REGISTRY_PASSWORD_\d+":"other-secret"/ },
  'ref-name': { value: 'antrea.example.invalid', shows: /antrea\.example\.invalid/ },
  'push-command': { value: 'echo another push', shows: /echo another push/ },
  'push-timeout': { value: '1s', with: { 'push-command': 'sleep 3' }, shows: /push command `sleep 3` did not finish within 1s/ },
  'lock-images': { value: 'true', tools: 'ytt', shows: /kbld/ },
  'dev-version': { value: '1.5.4-dev.77', shows: /1\.5\.4-dev\.77/ },
  timeout: { value: '2s', shows: /was not seen within 2s/ },
  'imgpkg-version': { value: 'v0.48.2', with: { 'push-command': '' }, tools: 'ytt', shows: /imgpkg\/releases\/download\/v0\.48\.2\// },
  'imgpkg-sha256': { value: 'd'.repeat(64), with: { 'push-command': '', 'imgpkg-version': 'v0.40.0' }, tools: 'ytt', shows: /imgpkg\/releases\/download\/v0\.40\.0\// },
  'kbld-version': { value: 'v0.41.0', with: { 'lock-images': 'true', 'kbld-sha256': 'e'.repeat(64) }, tools: 'ytt', shows: /kbld\/releases\/download\/v0\.41\.0\// },
  'kbld-sha256': { value: 'e'.repeat(64), with: { 'lock-images': 'true', 'kbld-version': 'v0.40.0' }, tools: 'ytt', shows: /kbld\/releases\/download\/v0\.40\.0\// },
  'tool-checksums': { value: 'no-such-sums.txt', shows: /no-such-sums\.txt/ },
  'artifact-name': { value: 'other-results', shows: /other-results/ },
};

/** Inputs that act only once the dev version has won, and the bootstrap integration test that shows each acting. */
const ONCE_WON: Record<string, { file: string; shows: RegExp }> = {
  // The action-mode test: the win held through its 10s window, and its assertion ran on the cluster.
  settle: { file: 'test/integration/bootstrap.test.ts', shows: /settle: '10s',[\s\S]*held through the 10s settle window/ },
  assert: { file: 'test/integration/bootstrap.test.ts', shows: /assert: ASSERT_PACKAGE_INSTALL,[\s\S]*result!\.assertions/ },
};

/** A PATH with only the named tools of the harness's PATH, besides node, git and the shell's own. */
function pathWith(tools: Tools, work: string): string {
  const harness = process.env.PATH ?? '';
  if (tools === 'harness') return harness;
  const bin = join(work, 'bin');
  mkdirSync(bin, { recursive: true });
  const ytt = harness.split(delimiter).map((d) => join(d, 'ytt')).find((f) => existsSync(f));
  if (!ytt) throw new Error('ytt is not on the harness PATH');
  if (tools !== 'none') symlinkSync(ytt, join(bin, 'ytt'));
  if (tools === 'ytt+imgpkg-standin') {
    writeFileSync(join(bin, 'imgpkg'), '#!/bin/sh\n[ "$1" = version ] && { echo "imgpkg version 0.41.1"; exit 0; }\necho "stand-in imgpkg: no push" >&2\nexit 1\n');
    chmodSync(join(bin, 'imgpkg'), 0o755);
  }
  return [bin, dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter);
}

/** What bootstrap mode does with these inputs, with the run's folders, ports, times and process ids made alike. */
async function bootstrapDoes(values: Record<string, string>, o: { tools?: Tools; createSeconds?: number } = {}): Promise<string> {
  const ws = await workspace('devpkg-bootstrap-own-');
  dirs.push(ws.dir);
  const work = ws.dir;
  const repo = join(work, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  // The providers folders of the default tanzu-dir (HOME's) and of the other one, as the CLI populated them.
  cpSync(PROVIDERS_FIXTURE, ws.providersDir, { recursive: true });
  cpSync(PROVIDERS_FIXTURE, join(repo, 'other', '.config', 'tanzu', 'tkg', 'providers'), { recursive: true });
  writeFileSync(join(repo, 'other', 'tanzu'), `#!/bin/sh\nexec ${JSON.stringify(STANDIN)} "$@"\n`);
  chmodSync(join(repo, 'other', 'tanzu'), 0o755);
  writeFileSync(join(repo, 'other-mgmt.yaml'), 'CLUSTER_NAME: other-mgmt\nCLUSTER_PLAN: dev\nINFRASTRUCTURE_PROVIDER: docker\nCNI: antrea\n');
  server.reset();
  const requests: string[] = [];
  const registry = await standInRegistry([]);
  const api = await emptyApiServer(requests);
  const calls: string[][] = [];
  const exec: ExecFn = async (p, args, opts) => {
    const file = args.indexOf('--file');
    calls.push([p, ...args, JSON.stringify(opts?.env ?? {}), ...(file >= 0 && existsSync(args[file + 1]!) ? [readFileSync(args[file + 1]!, 'utf8')] : [])]);
    if (p === 'docker') return { code: 1, stdout: '', stderr: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n' };
    if (p === 'kind') return { code: 0, stdout: 'No kind clusters found.\n', stderr: '' };
    if (args[0] === 'management-cluster' && args[1] === 'create' && !args.includes('--dry-run')) {
      return execTool('bash', ['-c', `sleep ${o.createSeconds ?? 0}`], opts);
    }
    if (args[0] === 'management-cluster' && args[1] === 'kubeconfig') {
      writeFileSync(args[args.indexOf('--export-file') + 1]!, api.kubeconfig);
      return { code: 0, stdout: '', stderr: '' };
    }
    return execTool(p, args, opts);
  };
  const github: GithubContext = {
    eventName: 'workflow_dispatch', event: {}, sha: '', ref: '', owner: 'example', repo: 'packages', runId: '4242', runNumber: 7, runAttempt: 1,
    serverUrl: 'https://github.com', apiUrl: 'https://api.github.com', workspace: repo,
  };
  const fill = (v: string) => v.replaceAll('SERVER', server.url).replaceAll('REGISTRY', registry.host);
  const host = new RecordingHost();
  // The tools devpkg starts see the runner's environment: PATH, and HOME (the tanzu CLI's default folder).
  const saved = { PATH: process.env.PATH, HOME: process.env.HOME };
  const PATH = pathWith(o.tools ?? 'harness', work);
  Object.assign(process.env, { PATH, HOME: ws.home });
  let err = '';
  try {
    const inputs = parseInputs(
      inputsFrom(
        Object.fromEntries(
          Object.entries({
            mode: 'bootstrap', packages: 'antrea/1.5.3', comment: 'false', 'packages-dir': 'addons/packages', 'host-check': 'false',
            'tanzu-cli': STANDIN, 'cluster-config': ws.clusterConfig, registry: 'REGISTRY/dev', 'ref-name': 'antrea.tanzu.vmware.com', 'addon-type': 'cni/antrea',
            'push-command': 'true', timeout: '1s', settle: '1s',
            ...values,
          }).map(([k, v]) => [k, fill(v)]),
        ),
      ),
    );
    await bootstrapMode({ inputs, github, host, exec, env: { PATH, HOME: ws.home, RUNNER_TEMP: join(work, 'runner-temp') }, install: { github: server.url } });
  } catch (e) {
    err = (e as Error).message;
  } finally {
    Object.assign(process.env, saved);
    for (const s of [registry.server, api.server]) {
      s.closeAllConnections();
      s.close();
    }
  }
  // The watches start together: their order is not the run's.
  requests.sort();
  // What the run wrote into each providers folder for the CLI (the overlay file of the dev Package).
  const written = [ws.providersDir, join(repo, 'other', '.config', 'tanzu', 'tkg', 'providers')].map((d) => {
    const dir = join(d, 'ytt', '04_user_customizations');
    return existsSync(dir) ? readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), 'utf8')]) : [];
  });
  return JSON.stringify({ err, calls, requests, written, downloads: [...server.requests], warnings: host.warnings, errors: host.errors, outputs: host.outputs })
    .replaceAll(server.url, 'SERVER')
    .replaceAll(registry.host, 'REGISTRY')
    .replaceAll(api.url, 'API')
    .replaceAll(work, 'WORK')
    .replaceAll(tmpdir(), 'TMP')
    .replace(/(TMP\/devpkg-[a-z-]+-)[A-Za-z0-9]{6}\b/g, '$1R')
    .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME')
    .replace(/\bafter \d+s\b/g, 'after Ns')
    .replace(/pid \d+/g, 'pid N')
    .replace(/(resourceVersion=|timeoutSeconds=)\d+/g, '$1N');
}

test('every input bootstrap mode documents is placed: shown acting here, or once the dev version won by a named bootstrap test', () => {
  const documented = [...Object.keys(ACTION.inputs).filter((i) => ACTION.inputs[i]!.description.startsWith('bootstrap mode:')), ...BOOTSTRAP_ALSO];
  const placed = new Set([...Object.keys(HERE), ...Object.keys(ONCE_WON)]);
  expect(documented.filter((i) => !placed.has(i))).toEqual([]);
  expect([...placed].filter((i) => !documented.includes(i))).toEqual([]);
  for (const i of BOOTSTRAP_ALSO) expect(Object.keys(ACTION.inputs)).toContain(i);
  for (const [input, { file, shows }] of Object.entries(ONCE_WON)) {
    expect({ input, shows: existsSync(resolve(file)) && shows.test(readFileSync(resolve(file), 'utf8')) }).toEqual({ input, shows: true });
  }
});

test('each input bootstrap mode documents changes what it does, with the real ytt and the tanzu CLI stand-in', async () => {
  const wrong = await inputsWithoutEffect(HERE, (c) => ({ tools: c.tools ?? 'harness', createSeconds: c.createSeconds ?? 0 }), bootstrapDoes, { forShows: (after) => after.replaceAll('\\', '') });
  expect(wrong).toEqual([]);
}, T);

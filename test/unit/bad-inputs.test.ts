// A census of bad inputs, as a new user would give them: CLI argv and action inputs. Each case
// names the input, a fragment of the message that must name the thing and what to do, the exit
// code, and checks that nothing was left behind in the temp folder (TMPDIR points at an empty
// folder of its own during each case).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { jest } from '@jest/globals';
import { runCli } from '../../src/cli.js';
import { runMain } from '../../src/main.js';

const fixture = mkdtempSync(join(tmpdir(), 'devpkg-census-'));
const repo = join(fixture, 'repo');
const pkgs = join(repo, 'addons/packages');
const scratch = join(fixture, 'tmp');
const savedEnv = { ...process.env };

beforeAll(() => {
  cpSync(resolve('examples/tce-packages'), repo, { recursive: true });
  // A version folder without a package.yaml, in a package folder without a metadata.yaml.
  mkdirSync(join(pkgs, 'nopkgyaml/1.0.0/bundle'), { recursive: true });
  writeFileSync(join(pkgs, 'nopkgyaml/1.0.0/README.md'), 'no package.yaml here\n');
  mkdirSync(join(fixture, 'empty'));
  writeFileSync(join(fixture, 'a-file'), 'not a folder\n');
});

afterAll(() => {
  rmSync(fixture, { recursive: true, force: true });
});

afterEach(() => {
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  process.exitCode = 0;
});

/** Runs fn with TMPDIR pointed at an empty folder; returns what fn returned and what was left there. */
async function inScratch<T>(fn: () => Promise<T>): Promise<{ value: T; leftovers: string[] }> {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch);
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  try {
    const value = await fn();
    return { value, leftovers: readdirSync(scratch) };
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

const DIGEST = `sha256:${'a'.repeat(64)}`;
const verify = (...a: string[]): string[] => ['verify', '--package-install', 'tkg-system/antrea', '--expect-version', '1.5.4-dev.1', ...a];
const plan = (...a: string[]): string[] => ['plan', '--repo', repo, ...a];
const dev = (...a: string[]): string[] => ['dev', '--package', join(pkgs, 'antrea/1.5.3'), '--registry', 'localhost:5001/devpkg', ...a];
const push = (...a: string[]): string[] => ['push', '--bundle', join(pkgs, 'antrea/1.5.3/bundle'), ...a];

// [argv, message fragment (on stderr), exit code]
const CLI_CASES: Array<[string[], string, number]> = [
  [[], 'Usage: devpkg <command>', 2],
  [['deploy'], 'unknown command "deploy"', 2],
  [verify('--timeout', '999999999h'), '--timeout: "999999999h" is longer than 24h, the longest devpkg waits', 2],
  [verify('--timeout', '-5m'), '--timeout: "-5m" is negative; give a duration such as 90s, 5m or 1h', 2],
  [verify('--timeout=-5m'), '--timeout: "-5m" is negative', 2],
  [verify('--settle', '-1s'), '--settle: "-1s" is negative', 2],
  [verify('--timeout', '0'), '--timeout: "0" is zero; give how long to wait', 2],
  [verify('--timeout', '5x'), '--timeout: "5x" is not a duration; use e.g. 90s, 5m or 1h', 2],
  [verify('--settle', '10m', '--timeout', '5m'), '--settle 10m is longer than --timeout 5m; a win must be able to hold', 2],
  [verify('--settle', '25h'), '--settle: "25h" is longer than 24h', 2],
  [['verify', '--package-install', 'tkg-system/antrea', '--expect-version', 'notsemver'], '--expect-version: "notsemver" is not a semver version', 2],
  [['verify', '--package-install', 'tkg-system/antrea', '--expect-version', 'v1.5.4'], '--expect-version: "v1.5.4" starts with "v"; Package versions are strict semver: write 1.5.4', 2],
  [['verify', '--package-install', 'tkg-system/antrea', '--expect-version', '1.5'], '--expect-version: "1.5" is not a semver version', 2],
  [['verify', '--expect-version', '1.5.4'], '--package-install is required (see devpkg verify --help)', 2],
  [['verify', '--package-install', 'antrea', '--expect-version', '1.5.4'], '--package-install: "antrea" is not NAMESPACE/NAME', 2],
  [verify('--bundle', 'sha256:xyz'), '--bundle: "sha256:xyz" is not sha256:<64 hex>', 2],
  [verify('--colour'), 'devpkg verify: unknown flag --colour; devpkg verify --help lists the flags', 2],
  [verify('--expect-verison', '1.5.4'), 'devpkg verify: unknown flag --expect-verison; did you mean --expect-version?', 2],
  [['plna', '--all'], 'devpkg: unknown command "plna"; did you mean plan?', 2],
  [verify('--timeout'), "Option '--timeout <value>' argument missing", 2],
  [verify('--kubeconfig', '/nonexistent/kubeconfig'), 'cannot load kubeconfig /nonexistent/kubeconfig', 1],
  [verify('--diagnostics', '/proc/nope'), '--diagnostics: cannot create /proc/nope (ENOENT at /proc/nope); give a folder devpkg can create', 2],
  [verify('--diagnostics', '<fixture>/a-file/diag'), 'a-file is a file, so <fixture>/a-file/diag cannot be a folder', 2],
  [dev('--diagnostics', '/proc/nope/deeper'), '--diagnostics: cannot create /proc/nope/deeper (ENOENT at /proc/nope)', 2],
  [plan('--all', '--dev-version', 'not-semver'), '--dev-version: "not-semver" is not a semver version', 2],
  [plan('--all', '--registry', 'HTTP://Bad Reg::/x'), '--registry: "HTTP://Bad Reg::/x" has a scheme (HTTP://); write the registry as HOST[:PORT][/PATH]', 2],
  [plan('--all', '--registry', 'not a registry'), '--registry: "not a registry" is not a registry: it contains a space', 2],
  [plan('--all', '--registry', 'myregistry/dev'), '--registry: "myregistry/dev" does not start with a registry host', 2],
  [plan('--all', '--registry', 'ghcr.io/My-Org'), 'path component "My-Org" is not valid', 2],
  [plan('--all', '--registry', 'ghcr.io:99x/dev'), '--registry: "ghcr.io:99x/dev" does not start with a registry host', 2],
  [plan('--all', '--dev-version', '1.0.0'), 'dev-version 1.0.0 does not outrank', 2],
  [plan(), 'give exactly one of --base REF, --all or --packages LIST', 2],
  [plan('--all', '--packages', 'antrea/1.5.3'), 'give exactly one of --base REF, --all or --packages LIST', 2],
  [plan('--packages', 'antrea'), 'packages: "antrea" is not NAME/VERSION', 2],
  [plan('--packages', 'nopkgyaml/1.0.0'), 'the folder addons/packages/nopkgyaml/1.0.0 has no package.yaml (it holds: README.md, bundle/), so it is not a version folder', 1],
  [plan('--packages', 'nosuch/1.0.0'), 'unknown package nosuch: no folder addons/packages/nosuch', 1],
  [plan('--packages', 'antrea/9.9.9'), 'unknown version 9.9.9 of package antrea', 1],
  [['plan', '--repo', '/nonexistent/repo', '--all'], '--repo: the repository folder /nonexistent/repo does not exist', 2],
  [['plan', '--repo', '/nonexistent/repo', '--packages', 'antrea/1.5.3'], '--repo: the repository folder /nonexistent/repo does not exist', 2],
  [['plan', '--repo', '<fixture>/a-file', '--all'], 'is a file; give the repository folder', 2],
  [['plan', '--repo', '<fixture>/empty', '--all'], 'no packages found; set packages-dir', 1],
  [['detect', '--repo', '/nonexistent/repo', '--all'], '--repo: the repository folder /nonexistent/repo does not exist', 2],
  [plan('--base', 'main'), 'is not a git repository (or any of its parents); pass the repository root', 1],
  [['dev', '--package', join(pkgs, 'antrea/1.5.3'), '--registry', 'not a registry'], '--registry: "not a registry" is not a registry: it contains a space', 2],
  [['dev', '--package', join(pkgs, 'antrea/1.5.3'), '--registry', 'https://ghcr.io/x'], '--registry: "https://ghcr.io/x" has a scheme (https://)', 2],
  [['dev', '--package', join(pkgs, 'antrea/1.5.3')], '--registry is required (see devpkg dev --help)', 2],
  [['dev', '--package', join(pkgs, 'antrea'), '--registry', 'localhost:5001/devpkg'], `--package: ${join(pkgs, 'antrea')} is a package folder, not a version folder; give one of its versions: ${join(pkgs, 'antrea/1.5.3')}`, 2],
  [['dev', '--package', '/nonexistent/pkg/1.0.0', '--registry', 'localhost:5001/devpkg'], '--package: folder /nonexistent/pkg/1.0.0 does not exist', 2],
  [['dev', '--package', join(pkgs, 'nopkgyaml/1.0.0'), '--registry', 'localhost:5001/devpkg'], 'holds no package.yaml; give a version folder', 2],
  [dev('--dev-version', '1.5.4_dev'), '--dev-version: "1.5.4_dev" is not a semver version', 2],
  [dev('--timeout', '-5m'), '--timeout: "-5m" is negative', 2],
  [dev('--settle', '2h', '--timeout', '1h'), '--settle 2h is longer than --timeout 1h', 2],
  [dev('--derive-from', 'git'), '--derive-from: "git" is not repo or cluster', 2],
  [dev('--package-install', 'x'), '--package-install: "x" is not NAMESPACE/NAME', 2],
  [dev('--ref-name', 'a=b=c'), 'ref-name', 2],
  // One refName rule (kapp-controller's: three labels) where the flag enters, before git or a package is read.
  [plan('--all', '--ref-name', 'antrea.example'), 'ref-name: "antrea.example" is not a valid refName: it must be a lower-case DNS name with at least three parts', 2],
  [plan('--base', 'main', '--ref-name', 'antrea.example'), 'ref-name: "antrea.example" is not a valid refName', 2],
  [dev('--ref-name', 'antrea.example'), 'ref-name: "antrea.example" is not a valid refName', 2],
  [['derive', '--from', join(pkgs, 'antrea/1.5.3/package.yaml'), '--image', `localhost:5001/devpkg/antrea@${DIGEST}`, '--dev-version', '1.0.0'], 'dev-version 1.0.0 does not outrank 1.5.3', 2],
  [push('--image', 'Bad Image!!'), '--image: "Bad Image!!" is not an image reference: it contains a space, "!"', 2],
  [push('--image', 'localhost:5001/devpkg/antrea'), '--image: image "localhost:5001/devpkg/antrea" has no tag; give REPO:TAG', 2],
  [push('--image', 'localhost:5001/devpkg/antrea:1.5.4+dev.1'), 'contains "+", which OCI tags cannot hold; use "1.5.4_dev.1"', 2],
  [push('--image', `localhost:5001/devpkg/antrea@${DIGEST}`), 'give REPO:TAG, not a digest', 2],
  [push('--image', 'antrea:1.0.0'), 'does not start with a registry host', 2],
  [push('--image', 'localhost:5001/x:1', '--registry-password', 'pw'), '--registry-password is not accepted; put the password in the environment variable DEVPKG_REGISTRY_PASSWORD', 2],
  [push('--image', 'localhost:5001/x:1', '--registry-username', 'me'), 'needs the password in the environment variable DEVPKG_REGISTRY_PASSWORD', 2],
  [['push', '--image', 'localhost:5001/x:1'], '--bundle is required (see devpkg push --help)', 2],
  [['push', '--bundle', '/nonexistent', '--image', 'localhost:5001/x:1'], '--bundle: the bundle folder /nonexistent does not exist', 2],
  [push('--image', 'localhost:5001/x:1', '--imgpkg-version', 'v0.45.0'), 'give the sha256 of its imgpkg-', 2],
  [push('--image', 'localhost:5001/x:1', '--imgpkg-sha256', 'a'.repeat(64)), '--imgpkg-sha256 needs --imgpkg-version', 2],
  [dev('--lock-images', '--kbld-version', 'v0.45.0'), 'with kbld-sha256 (CLI: --kbld-sha256)', 2],
  [['bootstrap', '--package', join(pkgs, 'antrea'), '--registry', 'localhost:5001/devpkg', '--prepare-only', '--tanzu-dir', '<fixture>/tanzu/.config/tanzu'], 'is a package folder, not a version folder', 2],
  [['bootstrap', '--package', join(pkgs, 'antrea/1.5.3'), '--registry', 'localhost:5001/devpkg', '--prepare-only', '--dev-version', 'latest', '--tanzu-dir', '<fixture>/tanzu/.config/tanzu'], '--dev-version: "latest" is not a semver version', 2],
  [['bootstrap', '--package', join(pkgs, 'antrea/1.5.3'), '--registry', 'localhost:5001/devpkg', '--prepare-only', '--bootstrap-timeout', '100h', '--tanzu-dir', '<fixture>/tanzu/.config/tanzu'], '--bootstrap-timeout: "100h" is longer than 24h', 2],
];

describe('devpkg CLI: bad inputs', () => {
  test.each(CLI_CASES)('%j', async (argv, fragment, code) => {
    const args = argv.map((a) => a.replace('<fixture>', fixture));
    let output = '';
    const { value, leftovers } = await inScratch(() => runCli(args, { stdout: (t) => (output += t), stderr: (t) => (output += t), env: { ...process.env, KUBECONFIG: '/nonexistent/kubeconfig' }, cwd: repo }));
    expect(output).toContain(fragment.replace('<fixture>', fixture));
    expect(value).toBe(code);
    expect(leftovers).toEqual([]);
  });
});

/** Runs the action's main step as the runner would, with these inputs; returns what it printed. */
async function action(inputs: Record<string, string>, env: Record<string, string> = {}): Promise<string> {
  const work = join(fixture, 'runner');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work);
  for (const f of ['output', 'state', 'summary']) writeFileSync(join(work, f), '');
  Object.assign(process.env, {
    GITHUB_WORKSPACE: repo,
    GITHUB_EVENT_NAME: 'workflow_dispatch',
    GITHUB_OUTPUT: join(work, 'output'),
    GITHUB_STATE: join(work, 'state'),
    GITHUB_STEP_SUMMARY: join(work, 'summary'),
    RUNNER_TEMP: work,
    INPUT_COMMENT: 'false',
    'INPUT_PACKAGES-DIR': 'addons/packages',
    INPUT_MODE: 'plan',
    INPUT_PACKAGES: 'antrea/1.5.3',
    ...env,
  });
  for (const [k, v] of Object.entries(inputs)) process.env[`INPUT_${k.toUpperCase()}`] = v;
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    await runMain();
    return write.mock.calls.map((c) => String(c[0])).join('');
  } finally {
    write.mockRestore();
  }
}

// A kubeconfig that loads (nothing contacts its server): the cluster-mode cases below get past the
// no-kubeconfig check to the tool checks they are about.
const kubeconfigDir = mkdtempSync(join(tmpdir(), 'devpkg-bad-inputs-kc-'));
const KUBECONFIG = join(kubeconfigDir, 'config');
writeFileSync(KUBECONFIG, [
  'apiVersion: v1', 'kind: Config', 'current-context: c',
  'clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]',
  'users: [{name: u, user: {token: t}}]',
  'contexts: [{name: c, context: {cluster: c, user: u}}]', '',
].join('\n'));
afterAll(() => rmSync(kubeconfigDir, { recursive: true, force: true }));

// [inputs, extra environment, message fragment (in the ::error:: line)]; the step fails (exit 1).
const ACTION_CASES: Array<[Record<string, string>, Record<string, string>, string]> = [
  [{ timeout: '999999999h' }, {}, 'input timeout: "999999999h" is longer than 24h'],
  [{ timeout: '-5m' }, {}, 'input timeout: "-5m" is negative'],
  [{ settle: '20m', timeout: '10m' }, {}, 'input settle 20m is longer than input timeout 10m'],
  [{ settle: 'soon' }, {}, 'input settle: "soon" is not a duration'],
  [{ 'bootstrap-timeout': '48h' }, {}, 'input bootstrap-timeout: "48h" is longer than 24h'],
  [{ 'dev-version': 'notsemver' }, {}, 'input dev-version: "notsemver" is not a semver version'],
  [{ registry: 'HTTP://Bad Reg::/x' }, {}, 'input registry: "HTTP://Bad Reg::/x" has a scheme (HTTP://)'],
  [{ registry: 'not a registry' }, {}, 'input registry: "not a registry" is not a registry: it contains a space'],
  [{ mode: 'deploy' }, {}, 'input mode: "deploy" is not one of plan, detect'],
  [{ all: 'yes' }, {}, 'input all: "yes" is not a boolean; use true or false'],
  [{ packages: 'antrea' }, {}, 'input packages: "antrea" is not NAME/VERSION'],
  [{ 'imgpkg-sha256': 'a'.repeat(64) }, {}, 'input imgpkg-sha256 needs input imgpkg-version'],
  [{ 'ytt-version': 'latest' }, {}, 'input ytt-version: "latest" is not a release version such as v0.44.3'],
  [{ mode: 'cluster', registry: 'localhost:5001/devpkg', 'imgpkg-version': 'v0.45.0' }, { KUBECONFIG }, 'devpkg pins no sha256 for imgpkg v0.45.0'],
  [{ mode: 'cluster', registry: 'localhost:5001/devpkg', 'imgpkg-version': 'v0.45.0', 'tool-checksums': 'nosuch.txt' }, {}, 'input tool-checksums: cannot read '],
  // A bad assert input: refused before the cluster is asked anything (kind mode: test/unit/kind-first-try.test.ts).
  [{ mode: 'cluster', registry: 'localhost:5001/devpkg', assert: 'kind: x' }, { KUBECONFIG }, 'assert: must be a YAML list'],
  // Before the host check, ytt, the tanzu CLI or a management cluster.
  [{ mode: 'bootstrap', registry: 'localhost:5001/devpkg', 'cluster-config': 'mc.yaml', assert: 'kind: x' }, {}, 'assert: must be a YAML list'],
  [{}, { GITHUB_OUTPUT: '/nonexistent/dir/output' }, 'GITHUB_OUTPUT is set to /nonexistent/dir/output, which cannot be created or written (ENOENT)'],
  [{}, { GITHUB_STEP_SUMMARY: '/nonexistent/dir/summary' }, 'GITHUB_STEP_SUMMARY is set to /nonexistent/dir/summary'],
];

describe('the action: bad inputs', () => {
  test.each(ACTION_CASES)('%j %j', async (inputs, env, fragment) => {
    const { value: log, leftovers } = await inScratch(() => action(inputs, env));
    expect(log).toContain(`::error::${fragment}`);
    expect(process.exitCode).toBe(1);
    expect(leftovers).toEqual([]);
  });
});

// No kubeconfig at all: HOME is an empty folder and KUBECONFIG unset, or naming a file in an empty
// folder. client-node would fall back to http://localhost:8080 and fail later ("HTTP protocol is
// not allowed", "cannot reach"); each cluster-using command names the places it looked instead,
// before it contacts anything.
describe('no kubeconfig at all', () => {
  const home = join(fixture, 'empty-home');
  const missing = join(fixture, 'empty-kube', 'config');
  const looked = 'no kubeconfig found (looked at --kubeconfig / $KUBECONFIG / ~/.kube/config)';
  const setHome = (kubeconfig: string | undefined) => {
    mkdirSync(home, { recursive: true });
    mkdirSync(join(fixture, 'empty-kube'), { recursive: true });
    process.env.HOME = home;
    if (kubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = kubeconfig;
  };
  const cases: Array<[string, string[]]> = [
    ['verify', verify()],
    ['dev', dev('--no-install')],
  ];
  test.each(cases.flatMap(([name, argv]) => [[name, argv, undefined] as const, [name, argv, missing] as const]))('%s (%j) with KUBECONFIG=%s', async (name, argv, kubeconfig) => {
    setHome(kubeconfig);
    let output = '';
    const { value, leftovers } = await inScratch(() => runCli([...argv], { stdout: (t) => (output += t), stderr: (t) => (output += t), env: { ...process.env }, cwd: repo }));
    const detail = kubeconfig ? `: $KUBECONFIG names ${missing}, which does not exist` : '';
    expect(output).toBe(`devpkg ${name}: ${looked}${detail}; give --kubeconfig FILE, or set KUBECONFIG to the cluster's kubeconfig\n`);
    expect(value).toBe(2);
    expect(leftovers).toEqual([]);
  });

  test('the action in cluster mode', async () => {
    setHome(undefined);
    const { value: log, leftovers } = await inScratch(() => action({ mode: 'cluster', registry: 'localhost:5001/devpkg' }));
    expect(log).toContain("::error::no kubeconfig found (looked at input kubeconfig / $KUBECONFIG / ~/.kube/config); give input kubeconfig FILE, or set KUBECONFIG to the cluster's kubeconfig");
    expect(log).not.toMatch(/HTTP protocol|localhost:8080|cannot reach/);
    expect(process.exitCode).toBe(1);
    expect(leftovers).toEqual([]);
  });
});

test('the census is over 40 cases', () => {
  expect(CLI_CASES.length + ACTION_CASES.length).toBeGreaterThan(40);
});

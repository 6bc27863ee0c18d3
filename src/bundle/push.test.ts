import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execTool, type ExecFn, type ExecOptions } from '../tools/exec.js';
import { Imgpkg } from '../tools/imgpkg.js';
import { explainPushFailure, printedDigests, pushBundle, pushCommandArgs, pushCommandDir, pushCommandEnv, pushLimits } from './push.js';
import { parseRepository } from './reference.js';

const DIGEST = 'sha256:' + 'ab'.repeat(32);

test('pushCommandEnv: every value as a variable', () => {
  expect(
    pushCommandEnv({ repository: { host: 'localhost:5001', path: 'devpkg/antrea' }, tag: '1.2.3_dev.1', bundleDir: '/r/b', package: 'antrea', version: '1.2.3+dev.1' }),
  ).toEqual({
    DEVPKG_REGISTRY: 'localhost:5001/devpkg/antrea',
    DEVPKG_PACKAGE: 'antrea',
    DEVPKG_VERSION: '1.2.3+dev.1',
    DEVPKG_TAG: '1.2.3_dev.1',
    DEVPKG_IMAGE: 'localhost:5001/devpkg/antrea:1.2.3_dev.1',
    DEVPKG_BUNDLE_DIR: '/r/b',
  });
});

test('pushLimits: the time-out and the signal, each only when given (a 0 time-out kept)', () => {
  const signal = new AbortController().signal;
  expect(pushLimits(undefined, undefined)).toStrictEqual({});
  expect(pushLimits(0)).toStrictEqual({ timeoutMs: 0 });
  expect(pushLimits(undefined, signal)).toStrictEqual({ signal });
  expect(pushLimits(90_000, signal)).toStrictEqual({ timeoutMs: 90_000, signal });
});

test('pushCommandArgs: the user\'s text is one argv element of bash -c', () => {
  expect(pushCommandArgs('make push-package OCI_REGISTRY="$DEVPKG_REGISTRY"')).toEqual(['bash', ['-c', 'make push-package OCI_REGISTRY="$DEVPKG_REGISTRY"']]);
});

describe('explainPushFailure', () => {
  test.each([
    ['UNAUTHORIZED: authentication required', 'me', /registry r.io refused the credentials of user "me"/],
    ['UNAUTHORIZED: authentication required', undefined, /requires credentials and none were given/],
    ['dial tcp 127.0.0.1:5: connect: connection refused', undefined, /registry r.io is not reachable; check that it is running/],
    ['something odd', undefined, /imgpkg push failed \(exit 1\):\nsomething odd/],
  ])('%s', (output, username, msg) => {
    expect(explainPushFailure({ what: 'imgpkg push', host: 'r.io', code: 1, output, username }).message).toMatch(msg);
  });
});

describe('pushBundle with a stand-in imgpkg', () => {
  let dir: string;
  let bundleDir: string;
  const calls: { cmd: string; args: readonly string[]; opts?: ExecOptions }[] = [];
  const tmpBefore = async () => (await readdir(tmpdir())).filter((n) => n.startsWith('devpkg-lock-')).length;

  // Writes the BundleLock that imgpkg would write at --lock-output.
  const exec: ExecFn = async (cmd, args, opts) => {
    calls.push({ cmd, args, opts });
    if (args[0] === 'version') return { code: 0, stdout: 'imgpkg version 0.46.1\n', stderr: '' };
    const lock = args[args.indexOf('--lock-output') + 1];
    const image = args[args.indexOf('-b') + 1].replace(/:[^:/]+$/, '');
    await writeFile(lock, `apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: BundleLock\nbundle:\n  image: ${image}@${DIGEST}\n  tag: x\n`);
    return { code: 0, stdout: '', stderr: '' };
  };

  beforeEach(async () => {
    calls.length = 0;
    dir = await mkdtemp(join(tmpdir(), 'devpkg-push-test-'));
    bundleDir = join(dir, 'bundle');
    await mkdir(join(bundleDir, '.imgpkg'), { recursive: true });
    await writeFile(join(bundleDir, '.imgpkg', 'images.yml'), 'kind: ImagesLock\n');
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  test('digest from the lock; temp lock folder removed; credentials only in env', async () => {
    const before = await tmpBefore();
    const imgpkg = await Imgpkg.create(exec);
    const r = await pushBundle({
      bundleDir,
      repository: parseRepository('localhost:5001/devpkg/a'),
      tag: '1.0.0_dev.1',
      credentials: { username: 'me', password: 'pw-secret' },
      imgpkg,
      exec,
    });
    expect(r).toEqual({ image: `localhost:5001/devpkg/a@${DIGEST}`, digest: DIGEST, tag: '1.0.0_dev.1' });
    const push = calls.find((c) => c.args[0] === 'push');
    expect(push?.args.slice(0, 5)).toEqual(['push', '-b', 'localhost:5001/devpkg/a:1.0.0_dev.1', '-f', bundleDir]);
    expect(push?.args.join(' ')).not.toContain('pw-secret');
    expect(Object.entries(push?.opts?.env ?? {}).find(([k]) => k.startsWith('IMGPKG_REGISTRY_HOSTNAME_'))?.[1]).toBe('localhost:5001');
    expect(await tmpBefore()).toBe(before);
  });

  test('--lock-output keeps the lock where asked', async () => {
    const imgpkg = await Imgpkg.create(exec);
    const lockOutput = join(dir, 'out.lock.yml');
    const r = await pushBundle({ bundleDir, repository: parseRepository('localhost:5001/devpkg/a'), tag: 't1', lockOutput, imgpkg, exec });
    expect(r.lockFile).toBe(lockOutput);
    expect(existsSync(lockOutput)).toBe(true);
  });

  test('bad tag and missing .imgpkg fail before anything runs', async () => {
    const imgpkg = await Imgpkg.create(exec);
    calls.length = 0;
    await expect(pushBundle({ bundleDir, repository: parseRepository('localhost:5001/a'), tag: '1.0.0+dev', imgpkg, exec })).rejects.toThrow(/contains "\+"/);
    await expect(pushBundle({ bundleDir: dir, repository: parseRepository('localhost:5001/a'), tag: 't', imgpkg, exec })).rejects.toThrow(/has no .imgpkg\/images.yml/);
    expect(calls).toEqual([]);
  });
});

// The push command runs at the repository root in every mode (issue 27): a root Makefile target
// like TCE's `make push-package` and a script path relative to the root both work, whichever
// folder the mode hands in (kind: the root; `devpkg dev`: the packages folder; a baseline: its
// bundle exported outside the work tree). The registry is a stand-in fetch answering the checks.
describe('push command working directory', () => {
  let dir: string;
  const registryFetch = (async (url: string | URL | Request, init?: RequestInit) => {
    const u = String(url);
    if (u.endsWith('/v2/')) return new Response('{}', { status: 200 });
    if (init?.method === 'HEAD' && u.includes('/manifests/')) return new Response(null, { status: 200, headers: { 'docker-content-digest': DIGEST } });
    return new Response('', { status: 404 });
  }) as typeof fetch;
  const MAKEFILE =
    'push-package:\n' +
    '\t@test -n "$(OCI_REGISTRY)" -a -n "$(PACKAGE)" -a -n "$(VERSION)" -a -n "$(TAG)"\n' +
    '\t@printf "%s %s %s %s %s\\n" "$$(pwd)" "$(OCI_REGISTRY)" "$(PACKAGE)" "$(VERSION)" "$(TAG)" > pushed-by-make.txt\n';
  const MAKE = 'make push-package OCI_REGISTRY="$DEVPKG_REGISTRY" PACKAGE="$DEVPKG_PACKAGE" VERSION="$DEVPKG_VERSION" TAG="$DEVPKG_TAG"';

  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'devpkg-pushdir-test-')));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  async function repoWithPackage(): Promise<{ root: string; packages: string; bundleDir: string }> {
    const root = join(dir, 'repo');
    const packages = join(root, 'addons', 'packages');
    const bundleDir = join(packages, 'foo', '1.0.0', 'bundle');
    await mkdir(join(bundleDir, '.imgpkg'), { recursive: true });
    await mkdir(join(root, 'hack'));
    await writeFile(join(root, 'Makefile'), MAKEFILE);
    await writeFile(join(root, 'hack', 'push.sh'), 'pwd > pushed-by-script.txt\n');
    execFileSync('git', ['init', '-q', root]);
    return { root, packages, bundleDir };
  }
  const push = (bundleDir: string, pushCommand: string, cwd?: string) =>
    pushBundle({
      bundleDir,
      repository: parseRepository('localhost:5001/devpkg/foo-bundle'),
      tag: '1.0.1-dev.1',
      pushCommand,
      cwd,
      env: { package: 'foo', version: '1.0.1-dev.1' },
      fetch: registryFetch,
    });

  test.each([
    ['the repository root (kind, cluster)', (r: { root: string }) => r.root],
    ['the packages folder (devpkg dev)', (r: { packages: string }) => r.packages],
    ['nothing: the current folder (bootstrap)', () => undefined],
  ])('given %s, a root Makefile target runs at the root', async (_name, cwdOf) => {
    const r = await repoWithPackage();
    const out = await push(r.bundleDir, MAKE, cwdOf(r));
    expect(out).toEqual({ image: `localhost:5001/devpkg/foo-bundle@${DIGEST}`, digest: DIGEST, tag: '1.0.1-dev.1' });
    expect(await readFile(join(r.root, 'pushed-by-make.txt'), 'utf8')).toBe(`${r.root} localhost:5001/devpkg/foo-bundle foo 1.0.1-dev.1 1.0.1-dev.1\n`);
  });

  test('a script path relative to the root runs from the packages folder', async () => {
    const r = await repoWithPackage();
    await push(r.bundleDir, 'bash hack/push.sh', r.packages);
    expect(await readFile(join(r.root, 'pushed-by-script.txt'), 'utf8')).toBe(`${r.root}\n`);
  });

  test('a bundle exported outside the work tree (the baseline) runs at the root of cwd', async () => {
    const r = await repoWithPackage();
    const exported = join(dir, 'export', 'bundle');
    await mkdir(exported, { recursive: true });
    await push(exported, MAKE, r.packages);
    expect(existsSync(join(r.root, 'pushed-by-make.txt'))).toBe(true);
  });

  test('outside any git repository: in the folder given', async () => {
    const bundleDir = join(dir, 'plain', 'bundle');
    await mkdir(bundleDir, { recursive: true });
    expect(await pushCommandDir(execTool, bundleDir, join(dir, 'plain'))).toBe(join(dir, 'plain'));
    const missing: ExecFn = async () => {
      throw new Error('git is not on PATH');
    };
    expect(await pushCommandDir(missing, bundleDir, dir)).toBe(dir);
  });
});

test.each([
  ['imgpkg push', "dir: .\nPushed 'localhost:5001/devpkg/foo-bundle@sha256:" + 'ab'.repeat(32) + "'\nSucceeded\n", ['sha256:' + 'ab'.repeat(32)]],
  ['with a tag, twice', `localhost:5001/devpkg/foo-bundle:1.0.1-dev.1@${'sha256:' + 'cd'.repeat(32)}\nlocalhost:5001/devpkg/foo-bundle@${'sha256:' + 'cd'.repeat(32)}\n`, ['sha256:' + 'cd'.repeat(32)]],
  ['another repository (an image the Makefile pushed too)', `Pushed 'localhost:5001/devpkg/foo-app@sha256:${'ef'.repeat(32)}'\nlocalhost:5001/devpkg/foo-bundle-old@sha256:${'ef'.repeat(32)}\n`, []],
  ['no digest at all', 'done\n', []],
])('printedDigests: %s', (_name, output, digests) => {
  expect(printedDigests(output, 'localhost:5001/devpkg/foo-bundle')).toEqual(digests);
});

// What a push command can do wrong (issue 34): each is an error naming the command, the registry
// and what is wrong, before any Package names a digest. The registry is a stand-in fetch holding
// `manifests` (reference -> digest).
describe('a push command that fails', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'devpkg-pushfault-test-'));
    await mkdir(join(dir, 'bundle'), { recursive: true });
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const OTHER = 'sha256:' + '0'.repeat(64);
  const registry = (manifests: Record<string, string>) =>
    (async (url: string | URL | Request, init?: RequestInit) => {
      const u = String(url);
      if (u.endsWith('/v2/')) return new Response('{}', { status: 200 });
      const ref = decodeURIComponent(/\/manifests\/(.+)$/.exec(u)?.[1] ?? '');
      const digest = manifests[ref];
      if (init?.method === 'HEAD' && digest) return new Response(null, { status: 200, headers: { 'docker-content-digest': digest } });
      return new Response(null, { status: 404 });
    }) as typeof fetch;
  const push = (pushCommand: string, manifests: Record<string, string>, timeoutMs?: number) =>
    pushBundle({
      bundleDir: join(dir, 'bundle'),
      repository: parseRepository('localhost:5001/devpkg/foo-bundle'),
      tag: '1.0.1-dev.1',
      pushCommand,
      cwd: dir,
      ...(timeoutMs ? { timeoutMs } : {}),
      fetch: registry(manifests),
    });

  test('exits non-zero: its exit code and output', async () => {
    await expect(push('echo make: target failed >&2; exit 3', {})).rejects.toThrow('push command `echo make: target failed >&2; exit 3` failed (exit 3):\nmake: target failed');
  });

  test('hangs past push-timeout: stopped with its process group (a grandchild that sleeps too), the error names the command and the limit', async () => {
    const pidFile = join(dir, 'grandchild.pid');
    const cmd = `echo building; bash -c 'sleep 300' & echo $! > ${pidFile}; wait`;
    const err = (await push(cmd, {}, 700).then(() => undefined, (e: unknown) => e)) as Error;
    expect(err.message).toBe(
      `push command \`${cmd}\` did not finish within 700ms (push-timeout; CLI --push-timeout) and was stopped with every process it started ` +
        '(its process group: SIGTERM, then SIGKILL); nothing was pushed to localhost:5001/devpkg/foo-bundle:1.0.1-dev.1 that devpkg will use. ' +
        'Find what it waits for (a prompt, a lock, a registry that does not answer) or raise push-timeout\nbuilding',
    );
    const pid = Number(await readFile(pidFile, 'utf8'));
    const alive = (() => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    })();
    expect(alive).toBe(false);
  }, 30_000);

  test('prints a digest the registry does not hold: named with the registry and the command', async () => {
    const cmd = `echo "Pushed '$DEVPKG_REGISTRY@${OTHER}'"`;
    await expect(push(cmd, { '1.0.1-dev.1': DIGEST, [DIGEST]: DIGEST })).rejects.toThrow(
      `push command \`${cmd}\` printed localhost:5001/devpkg/foo-bundle@${OTHER}, but registry localhost:5001 has no manifest ${OTHER} in devpkg/foo-bundle: ` +
        'devpkg writes no Package referencing a digest the registry does not hold. Check that the command pushes to $DEVPKG_IMAGE (localhost:5001/devpkg/foo-bundle:1.0.1-dev.1) and prints the digest of that push',
    );
  });

  test('prints a digest the registry holds, but the tag is another: both named', async () => {
    const cmd = `echo "$DEVPKG_REGISTRY@${OTHER}"`;
    await expect(push(cmd, { '1.0.1-dev.1': DIGEST, [DIGEST]: DIGEST, [OTHER]: OTHER })).rejects.toThrow(
      `push command \`${cmd}\` printed localhost:5001/devpkg/foo-bundle@${OTHER}, but in registry localhost:5001 the tag localhost:5001/devpkg/foo-bundle:1.0.1-dev.1 is ${DIGEST}`,
    );
  });

  test('succeeds without pushing the tag: the command and $DEVPKG_IMAGE named', async () => {
    await expect(push('true', {})).rejects.toThrow(
      'push command `true` succeeded, but registry localhost:5001 has no tag 1.0.1-dev.1 in devpkg/foo-bundle: the command must push the bundle to $DEVPKG_IMAGE (localhost:5001/devpkg/foo-bundle:1.0.1-dev.1)',
    );
  });

  test('prints the digest it pushed under the tag: that digest', async () => {
    expect(await push(`echo "$DEVPKG_IMAGE@${DIGEST}"`, { '1.0.1-dev.1': DIGEST, [DIGEST]: DIGEST })).toEqual({ image: `localhost:5001/devpkg/foo-bundle@${DIGEST}`, digest: DIGEST, tag: '1.0.1-dev.1' });
  });
});

import type { ExecFn, ExecOptions } from './exec.js';
import { Imgpkg, imgpkgArgs, imgpkgAuthEnv, parseImgpkgVersion, scrubSecrets } from './imgpkg.js';

describe('imgpkgArgs', () => {
  test.each([
    [
      { image: 'localhost:5001/devpkg/a:1.0.0_dev.1', bundleDir: '/b', lockOutput: '/t/lock.yml' },
      ['push', '-b', 'localhost:5001/devpkg/a:1.0.0_dev.1', '-f', '/b', '--lock-output', '/t/lock.yml'],
    ],
    [
      { image: 'reg.example.com/a:t', bundleDir: '/b', lockOutput: '/l', insecure: true },
      ['push', '-b', 'reg.example.com/a:t', '-f', '/b', '--lock-output', '/l', '--registry-insecure'],
    ],
  ])('push %j', (o, argv) => expect(imgpkgArgs.push(o)).toEqual(argv));

  test('copy: a bundle into another repository, with its lock', () => {
    expect(imgpkgArgs.copy({ image: 'h/a@sha256:x', toRepo: 'k:5000/devpkg/a-bundle', lockOutput: '/l.yml' })).toEqual(['copy', '-b', 'h/a@sha256:x', '--to-repo', 'k:5000/devpkg/a-bundle', '--lock-output', '/l.yml']);
  });

  test('pull', () => {
    expect(imgpkgArgs.pull({ image: 'h/a@sha256:x', outputDir: '/o' })).toEqual(['pull', '-b', 'h/a@sha256:x', '-o', '/o']);
  });
});

test.each([
  ['imgpkg version 0.46.1\n\nSucceeded\n', [0, 46, 1]],
  ['imgpkg version v0.10.0\n', [0, 10, 0]],
  ['imgpkg version develop\n\nSucceeded\n', undefined],
  ['something else', 'unknown'],
])('parseImgpkgVersion(%j)', (text, want) => expect(parseImgpkgVersion(text)).toEqual(want));

describe('imgpkgAuthEnv', () => {
  const login = { host: 'ghcr.io', username: 'me', password: 'pw' };
  test('first free numeric suffix', () => {
    expect(imgpkgAuthEnv(login, {})).toEqual({
      IMGPKG_REGISTRY_HOSTNAME_0: 'ghcr.io',
      IMGPKG_REGISTRY_USERNAME_0: 'me',
      IMGPKG_REGISTRY_PASSWORD_0: 'pw',
    });
  });
  test('Docker Hub under the name the keychain matches', () => {
    expect(imgpkgAuthEnv({ ...login, host: 'docker.io' }, {}).IMGPKG_REGISTRY_HOSTNAME_0).toBe('index.docker.io');
  });
  test('keeps the user\'s own _0 and _1', () => {
    const env = imgpkgAuthEnv(login, { IMGPKG_REGISTRY_HOSTNAME_0: 'a', IMGPKG_REGISTRY_IDENTITY_TOKEN_1: 't' });
    expect(Object.keys(env)).toEqual(['IMGPKG_REGISTRY_HOSTNAME_2', 'IMGPKG_REGISTRY_USERNAME_2', 'IMGPKG_REGISTRY_PASSWORD_2']);
  });
});

describe('scrubSecrets', () => {
  const login = { username: 'me', password: 'p@ss w0rd' };
  test.each([
    ['plain', 'auth p@ss w0rd failed', 'auth *** failed'],
    ['url-encoded', 'https://me:p%40ss%20w0rd@x', 'https://me:***@x'],
    ['base64 of user:password', `Authorization: Basic ${Buffer.from('me:p@ss w0rd').toString('base64')}`, 'Authorization: Basic ***'],
  ])('%s', (_name, text, want) => expect(scrubSecrets(text, [login.password], login)).toBe(want));
  test('empty secrets change nothing', () => expect(scrubSecrets('abc', ['', undefined])).toBe('abc'));
});

function fakeExec(answers: Record<string, { code: number; stdout: string; stderr?: string }>) {
  const calls: { cmd: string; args: readonly string[]; opts?: ExecOptions }[] = [];
  const exec: ExecFn = async (cmd, args, opts) => {
    calls.push({ cmd, args, opts });
    const a = answers[args[0] ?? ''] ?? { code: 0, stdout: '' };
    return { code: a.code, stdout: a.stdout, stderr: a.stderr ?? '' };
  };
  return { exec, calls };
}

describe('Imgpkg', () => {
  test('create checks the version', async () => {
    const ok = fakeExec({ version: { code: 0, stdout: 'imgpkg version 0.46.1\n' } });
    expect((await Imgpkg.create(ok.exec)).version).toEqual([0, 46, 1]);
    const dev = fakeExec({ version: { code: 0, stdout: 'imgpkg version develop\n' } });
    expect((await Imgpkg.create(dev.exec)).version).toBeUndefined();
    const old = fakeExec({ version: { code: 0, stdout: 'imgpkg version 0.2.0\n' } });
    await expect(Imgpkg.create(old.exec)).rejects.toThrow(/imgpkg 0.2.0 is too old; devpkg needs imgpkg 0.10 or newer/);
    const bad = fakeExec({ version: { code: 1, stdout: '', stderr: 'boom' } });
    await expect(Imgpkg.create(bad.exec)).rejects.toThrow(/unexpected answer \(exit 1\): boom/);
  });

  test('push: credentials only in the environment, scrubbed from output', async () => {
    const f = fakeExec({
      version: { code: 0, stdout: 'imgpkg version 0.46.1\n' },
      push: { code: 1, stdout: '', stderr: 'UNAUTHORIZED: password hunter2 rejected' },
    });
    const imgpkg = await Imgpkg.create(f.exec);
    const r = await imgpkg.push({
      image: 'ghcr.io/a:t',
      bundleDir: '/b',
      lockOutput: '/l',
      login: { host: 'ghcr.io', username: 'me', password: 'hunter2' },
    });
    expect(r.stderr).toBe('UNAUTHORIZED: password *** rejected');
    const push = f.calls[1];
    expect(push.args.join(' ')).not.toContain('hunter2');
    expect(Object.values(push.opts?.env ?? {})).toContain('hunter2');
    expect(Object.keys(push.opts?.env ?? {}).every((k) => k.startsWith('IMGPKG_REGISTRY_'))).toBe(true);
  });
});

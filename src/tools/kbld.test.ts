import type { ExecFn } from './exec.js';
import { Kbld, kbldArgs, kbldAuthEnv, parseKbldVersion } from './kbld.js';

test('lockImages argv', () => {
  expect(kbldArgs.lockImages('/repo/pkg/1.0.0/bundle')).toEqual([
    '-f',
    '/repo/pkg/1.0.0/bundle/config',
    '--imgpkg-lock-output',
    '/repo/pkg/1.0.0/bundle/.imgpkg/images.yml',
  ]);
});

test.each([
  ['kbld version 0.46.0\n\nSucceeded\n', '0.46.0'],
  ['kbld version develop\n', 'develop'],
  ['nope', undefined],
])('parseKbldVersion(%j)', (t, v) => expect(parseKbldVersion(t)).toBe(v));

test('kbldAuthEnv: KBLD_REGISTRY_*_N with the first free suffix', () => {
  const login = { host: 'ghcr.io', username: 'me', password: 'pw' };
  expect(kbldAuthEnv(login, { KBLD_REGISTRY_HOSTNAME_0: 'x', IMGPKG_REGISTRY_HOSTNAME_1: 'y' })).toEqual({
    KBLD_REGISTRY_HOSTNAME_1: 'ghcr.io',
    KBLD_REGISTRY_USERNAME_1: 'me',
    KBLD_REGISTRY_PASSWORD_1: 'pw',
  });
});

test('lockImages failure names the config folder and hides the password', async () => {
  const exec: ExecFn = async (_cmd, args) =>
    args[0] === 'version'
      ? { code: 0, stdout: 'kbld version 0.46.0\n', stderr: '' }
      : { code: 1, stdout: '', stderr: 'GET https://ghcr.io: denied for pw-123' };
  const kbld = await Kbld.create(exec);
  const err = await kbld.lockImages('/b', { host: 'ghcr.io', username: 'me', password: 'pw-123' }).catch((e: Error) => e);
  expect((err as Error).message).toMatch(/kbld could not lock the images of \/b\/config \(exit 1\): GET https:\/\/ghcr.io: denied for \*\*\*/);
});

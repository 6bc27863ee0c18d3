import type { CliIO } from './io.js';
import { run } from './push.js';

function io(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIO = { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env, cwd: '/tmp' };
  return { cli, out, err };
}

test('--help prints usage and exits 0', async () => {
  const t = io();
  expect(await run(['--help'], t.cli)).toBe(0);
  expect(t.out.join('')).toContain('Usage: devpkg push --bundle DIR --image REPO:TAG');
  expect(t.out.join('')).toContain('DEVPKG_REGISTRY_PASSWORD');
});

test.each([
  [['--image', 'localhost:5001/a:t'], {}, /--bundle is required/],
  [['--bundle', 'b'], {}, /--image is required/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:t', '--registry-password', 'x'], {}, /--registry-password is not accepted.*DEVPKG_REGISTRY_PASSWORD/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:t', '--registry-username', 'me'], {}, /needs the password in the environment variable DEVPKG_REGISTRY_PASSWORD/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:t'], { DEVPKG_REGISTRY_PASSWORD: 'x' }, /--registry-username is not/],
  [['--bundle', 'b', '--image', 'localhost:5001/a:1.0+dev'], {}, /contains "\+"/],
])('usage error %j', async (argv, env, msg) => {
  const t = io(env);
  const err = (await run(argv, t.cli).catch((e: Error) => e)) as Error & { exitCode?: number };
  expect(err.message).toMatch(msg);
  expect(err.exitCode).toBe(2);
});

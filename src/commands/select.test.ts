import { runCli } from '../cli.js';
import type { CliIO } from './io.js';

function fakeIO(): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    env: {},
    cwd: '/nonexistent',
    stdout: (t: string) => {
      io.out += t;
    },
    stderr: (t: string) => {
      io.err += t;
    },
  };
  return io;
}

async function select(...args: string[]) {
  const io = fakeIO();
  const code = await runCli(['select', ...args], io);
  return { code, out: io.out, err: io.err };
}

describe('devpkg select', () => {
  test.each([
    [['--versions', '1.5.3+vmware.1-tkg.1,1.5.4-dev.1'], '1.5.3+vmware.1-tkg.1\n'],
    [['--versions', '1.5.3+vmware.1-tkg.1, 1.5.4-dev.1', '--prereleases'], '1.5.4-dev.1\n'],
    [['--versions', '1.5.3+vmware.10-tkg.1,1.5.3+vmware.9-tkg.1'], '1.5.3+vmware.9-tkg.1\n'],
    [['--versions', '1.0.0,1.1.0-rc.1,1.2.0-dev.1', '--prerelease-identifiers', 'rc'], '1.1.0-rc.1\n'],
    [['--versions', '1.0.5,1.1.0-rc.1,1.1.0', '--constraints', '>=1.0.0 <1.1.0', '--prereleases'], '1.1.0-rc.1\n'],
    [['--versions', '1.0.0,1.1.0-dev.1', '--constraints', '1.1.0-dev.1'], '1.1.0-dev.1\n'],
    [['--versions=v1.0.0,0.9.0'], 'v1.0.0\n'],
  ])('%j', async (args, expected) => {
    const r = await select(...args);
    expect(r).toEqual({ code: 0, out: expected, err: '' });
  });

  test("every ordering the help claims (A > B) is what select picks, in either order", async () => {
    const help = (await select('--help')).out;
    const claims = [...help.replace(/\s+/g, ' ').matchAll(/(\d+\.\d+\.\d+\S*) > (\d+\.\d+\.\d+[^\s,()]*)/g)].map((m) => [m[1]!, m[2]!.replace(/[.]$/, '')]);
    expect(claims.length).toBeGreaterThan(0);
    for (const [higher, lower] of claims) {
      await expect(select('--versions', `${higher},${lower}`)).resolves.toEqual({ code: 0, out: `${higher}\n`, err: '' });
      await expect(select('--versions', `${lower},${higher}`)).resolves.toEqual({ code: 0, out: `${higher}\n`, err: '' });
    }
  });

  test('--explain lists each version on stderr', async () => {
    const r = await select('--versions', '1.0.0,1.1.0-dev.1', '--explain');
    expect(r.code).toBe(0);
    expect(r.out).toBe('1.0.0\n');
    expect(r.err).toContain('  1.1.0-dev.1: prerelease; versionSelection.prereleases is not set\n');
    expect(r.err).toContain('  1.0.0: selected\n');
  });

  test('none selectable: exit 1 and why each was dropped', async () => {
    const r = await select('--versions', '1.1.0-dev.1,2.0.0,01.0.0', '--constraints', '<2.0.0');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^devpkg select: no version can be selected\. Expected to find at least one version/);
    expect(r.err).toContain('  1.1.0-dev.1: prerelease; versionSelection.prereleases is not set\n');
    expect(r.err).toContain('  2.0.0: does not satisfy <2.0.0\n');
    expect(r.err).toContain('  01.0.0: not a semver version: Major number must not contain leading zeroes "01"\n');
  });

  test('--help', async () => {
    const r = await select('--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: devpkg select --versions/);
  });

  test.each([
    [[], /--versions is required/],
    [['--versions', '1.0.0', '--prereleases', '--prerelease-identifiers', 'rc'], /either --prereleases or --prerelease-identifiers/],
    [['--versions', '1.0.0', '--bogus'], /bogus/],
    [['--versions', '1.0.0', '--prerelease-identifiers', ','], /at least one identifier/],
    [['--versions', '1.0.0', '--constraints', '>=1.0'], /--constraints: cannot parse version constraint ">=1.0"/],
  ])('bad usage %j exits 2', async (args, message) => {
    const r = await select(...args);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^devpkg select: /);
    expect(r.err).toMatch(message);
  });
});

import { describe, expect, test } from '@jest/globals';
import { runCli } from '../cli.js';
import { digestOf, verifiedPackage } from './verify.js';

const D = `sha256:${'ab'.repeat(32)}`;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {}, cwd: '/' });
  return { code, out, err };
}

describe('devpkg verify flags', () => {
  test.each([
    [D, D],
    [`reg.example/x/antrea@${D}`, D],
    [undefined, undefined],
  ])('digestOf(%j)', (b, want) => expect(digestOf(b)).toBe(want));
  test('a tag is not a digest', () => expect(() => digestOf('reg/x:1.0.0')).toThrow(/not sha256/));

  test('--help', async () => {
    const r = await cli(['verify', '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: devpkg verify --package-install NS\/NAME --expect-version V/);
  });
  test.each<[string[], RegExp]>([
    [['verify', '--expect-version', '1.0.0'], /--package-install is required/],
    [['verify', '--package-install', 'antrea', '--expect-version', '1'], /"antrea" is not NAMESPACE\/NAME/],
    [['verify', '--package-install', 'a/b'], /--expect-version is required/],
    [['verify', '--package-install', 'a/b', '--expect-version', '1.0.0', '--settle', 'soon'], /--settle: "soon" is not a duration/],
    [['dev', '--registry', 'r/x'], /--package is required/],
    [['dev', '--package', 'p', '--registry', 'http://r'], /--registry: "http:\/\/r" has a scheme \(http:\/\/\)/],
    [['dev', '--package', 'p', '--registry', 'localhost:5001/x', '--derive-from', 'x'], /--derive-from: "x" is not repo or cluster/],
  ])('usage error: %j', async (args, msg) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(msg);
  });
});

describe('verifiedPackage: what devpkg verify heads its result with', () => {
  const pkgs = (...v: string[]) => v.map((version) => ({ spec: { version, refName: 'antrea.tanzu.vmware.com' } }));
  const pkgi = (version?: string) => ({
    metadata: { name: 'antrea-pi', namespace: 'ns' },
    spec: { packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } } },
    status: version ? { version } : {},
  });
  test.each<[string, Parameters<typeof verifiedPackage>[0], ReturnType<typeof verifiedPackage>]>([
    ['the released version still in place', { pkgi: pkgi('1.5.3'), packages: pkgs('1.5.3', '1.5.4-dev.1') }, { name: 'antrea', refName: 'antrea.tanzu.vmware.com', releasedVersion: '1.5.3' }],
    ['the dev version in place: the highest other version', { pkgi: pkgi('1.5.4-dev.1'), packages: pkgs('1.5.2', '1.5.3', '1.5.4-dev.1') }, { name: 'antrea', refName: 'antrea.tanzu.vmware.com', releasedVersion: '1.5.3' }],
    ['no other version', { pkgi: pkgi('1.5.4-dev.1'), packages: pkgs('1.5.4-dev.1') }, { name: 'antrea', refName: 'antrea.tanzu.vmware.com' }],
    ['no PackageInstall seen', { packages: [] }, { name: 'fallback' }],
  ])('%s', (_n, last, want) => expect(verifiedPackage(last, 'fallback', '1.5.4-dev.1')).toEqual(want));
});

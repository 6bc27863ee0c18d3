import { readFileSync } from 'node:fs';
import { runCli } from './cli.js';
import { buildCommit, VERSION, versionLine } from './version.js';

const SHA = '0123456789abcdef0123456789abcdef01234567';

test("the version is package.json's", () => {
  expect(VERSION).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
});

test.each([
  ['a release build', `devpkg-build-commit:${SHA}`, SHA],
  ['a build from source (the stamp as committed)', `devpkg-build-commit:${'0'.repeat(40)}`, undefined],
  ['a short sha', 'devpkg-build-commit:0123456', undefined],
  ['no stamp at all', '', undefined],
])('the commit of %s', (_what, stamp, want) => {
  expect(buildCommit(stamp)).toBe(want);
});

test('the version line names the commit when the build has one', () => {
  expect(versionLine('1.2.3', SHA)).toBe('devpkg 1.2.3 (commit 0123456)');
  expect(versionLine('1.2.3', undefined)).toBe('devpkg 1.2.3');
});

test.each([['--version'], ['-V'], ['version']])('devpkg %s prints the version line and exits 0', async (arg) => {
  let out = '';
  let err = '';
  const code = await runCli([arg], { stdout: (t) => (out += t), stderr: (t) => (err += t), env: {}, cwd: process.cwd() });
  expect({ code, out, err }).toEqual({ code: 0, out: `devpkg ${VERSION}\n`, err: '' });
});

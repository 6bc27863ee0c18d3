// scripts/release.mjs, the release workflow's steps, run as the workflow runs them (a process with
// the runner's variables) in a folder holding a package.json and a CHANGELOG.md, against the
// GitHub API stand-in: the checks on the tag, then the release with its notes and files and the
// major tag, first and again (a re-run), for a prerelease and for an older patch release.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { GitHubStandin } from '../support/github-standin.js';

const SCRIPT = resolve('scripts/release.mjs');
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const CHANGELOG = '# Changelog\n\nIntro.\n\n## 0.2.0 (2026-12-03)\n\nNew things:\n\n- one\n- two\n\n## 0.1.0\n\nThe first.\n';

let standin: GitHubStandin;
let dir: string;
beforeEach(async () => {
  standin = await new GitHubStandin('OWNER', 'devpkg').start();
  dir = mkdtempSync(join(tmpdir(), 'devpkg-release-'));
  writeFileSync(join(dir, 'CHANGELOG.md'), CHANGELOG);
  writeFileSync(join(dir, 'devpkg-0.2.0.tgz'), Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0x00, 0x80]));
});
afterEach(async () => {
  await standin?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function release(version: string, tag: string, args: string[], sha = A): Promise<{ code: number; stdout: string; stderr: string }> {
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'devpkg', version }));
  const env = { PATH: process.env.PATH, GITHUB_REF_NAME: tag, GITHUB_SHA: sha, GITHUB_REPOSITORY: 'OWNER/devpkg', GITHUB_API_URL: standin.url, GITHUB_TOKEN: 'standin-token' };
  try {
    const r = await promisify(execFile)(process.execPath, [SCRIPT, ...args], { cwd: dir, env, encoding: 'utf8' });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('check', () => {
  test("the tag is package.json's version and the notes are CHANGELOG.md's section of it", async () => {
    const r = await release('0.2.0', 'v0.2.0', ['check']);
    expect(r).toMatchObject({ code: 0, stdout: 'release: v0.2.0 matches package.json; its notes:\nNew things:\n\n- one\n- two\n' });
  });
  test.each([
    ['a tag that is not the version', '0.2.0', 'v0.2.1', 'release: the tag v0.2.1 is not package.json\'s version 0.2.0: tag the commit that sets it (npm version 0.2.1)'],
    ['a tag that is not a version', '0.2.0', 'latest', 'release: the tag "latest" is not vMAJOR.MINOR.PATCH[-PRERELEASE] (e.g. v1.2.3)'],
    ['a version without notes', '0.3.0', 'v0.3.0', 'release: CHANGELOG.md has no "## 0.3.0" section: write the release notes there before tagging'],
  ])('%s: one line saying what to do, exit 1', async (_what, version, tag, message) => {
    const r = await release(version, tag, ['check']);
    expect(r).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
    expect(standin.requests).toEqual([]);
  });
  test('bad usage: exit 2', async () => {
    expect((await release('0.2.0', 'v0.2.0', ['publish'])).code).toBe(2);
  });
});

describe('publish', () => {
  test('the release with the notes and the file, then the major tag made at the commit; a re-run updates both, duplicating nothing', async () => {
    const first = await release('0.2.0', 'v0.2.0', ['publish', 'devpkg-0.2.0.tgz']);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const [rel] = [...standin.releases.values()];
    expect(rel).toMatchObject({ tag_name: 'v0.2.0', name: 'v0.2.0', body: 'New things:\n\n- one\n- two', prerelease: false, draft: false });
    expect(rel!.assets.map((a) => [a.name, a.data.equals(readFileSync(join(dir, 'devpkg-0.2.0.tgz')))])).toEqual([['devpkg-0.2.0.tgz', true]]);
    expect(Object.fromEntries(standin.refs)).toEqual({ 'refs/tags/v0': A });
    expect(first.stdout).toContain(`release: v0 -> ${A} (v0.2.0)`);

    // The same tag again, e.g. a re-run after the tag was moved to a fixed commit.
    writeFileSync(join(dir, 'devpkg-0.2.0.tgz'), 'rebuilt');
    const again = await release('0.2.0', 'v0.2.0', ['publish', 'devpkg-0.2.0.tgz'], B);
    expect(again.code).toBe(0);
    expect([...standin.releases.values()]).toHaveLength(1);
    expect(rel!.assets.map((a) => [a.name, a.data.toString()])).toEqual([['devpkg-0.2.0.tgz', 'rebuilt']]);
    expect(Object.fromEntries(standin.refs)).toEqual({ 'refs/tags/v0': B });
    expect(standin.requests.every((r) => r.authorization === 'Bearer standin-token')).toBe(true);
  });

  test('a prerelease is marked so and moves no major tag', async () => {
    writeFileSync(join(dir, 'CHANGELOG.md'), CHANGELOG.replace('## 0.2.0 (2026-12-03)', '## 1.0.0-rc.1'));
    standin.refs.set('refs/tags/v1', B);
    const r = await release('1.0.0-rc.1', 'v1.0.0-rc.1', ['publish', 'devpkg-0.2.0.tgz']);
    expect(r.code).toBe(0);
    expect([...standin.releases.values()][0]).toMatchObject({ tag_name: 'v1.0.0-rc.1', prerelease: true });
    expect(Object.fromEntries(standin.refs)).toEqual({ 'refs/tags/v1': B });
    expect(r.stdout).toContain('release: v1.0.0-rc.1 is a prerelease: v1 stays where it is');
  });

  test('an older patch release (v0.1.1 once v0.2.0 is out) leaves the major tag on the newer one', async () => {
    writeFileSync(join(dir, 'CHANGELOG.md'), CHANGELOG.replace('## 0.2.0 (2026-12-03)', '## 0.1.1'));
    standin.refs.set('refs/tags/v0', B);
    standin.refs.set('refs/tags/v0.2.0', B);
    standin.refs.set('refs/tags/v0.1.1', A);
    const r = await release('0.1.1', 'v0.1.1', ['publish', 'devpkg-0.2.0.tgz']);
    expect(r.code).toBe(0);
    expect(standin.refs.get('refs/tags/v0')).toBe(B);
    expect(r.stdout).toContain('release: v0.2.0 is newer than v0.1.1: v0 stays where it is');
  });

  test('a refused call fails naming the step and GitHub\'s message', async () => {
    standin.failNext.push(404, 403);
    const r = await release('0.2.0', 'v0.2.0', ['publish', 'devpkg-0.2.0.tgz']);
    expect(r).toMatchObject({ code: 1, stderr: 'release: creating the release of v0.2.0: HTTP 403 stand-in: injected 403\n' });
    expect(standin.refs.size).toBe(0);
  });
});

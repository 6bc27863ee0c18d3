// The release workflow (.github/workflows/release.yml) as a runner runs it on a pushed tag: in a
// copy of devpkg's repository (every tracked file) tagged v<package.json's version>, executed by
// act against the GitHub API stand-in. The check job runs as written except its three longest
// steps, npm ci, `npm run check-dist` and `npm run test:unit` (CI runs those on every change, and
// they would be minutes of this tier; test/unit/workflows.test.ts checks they stay in the job,
// before the package is made): the tag check, the commit stamp and `npm pack` run here. Then the
// release job publishes to the stand-in: the release with CHANGELOG.md's notes and the package,
// and the major tag moved to the tag's commit. The package is then installed from the release as a
// user would, and says which commit it was built from.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expectSuccess, git, jobResults, repoRoot } from './helpers/act.js';
import { artifactsOf, makeWorld, runIn, type World } from './helpers/world.js';

const T = 1_200_000;
const VERSION = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const TAG = `v${VERSION}`;
const MAJOR = `v${VERSION.split('.')[0]}`;
const SKIPPED_HERE = ['      - run: npm ci --no-audit --no-fund\n', '      - run: npm run check-dist\n', '      - run: npm run test:unit\n'];

/** Every tracked file of this checkout as it is in the work tree (dist/ is already there, whole), with release.yml less the steps above. */
function wholeRepository(dir: string): void {
  for (const f of execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean)) {
    if (f.startsWith('dist/') || !existsSync(join(repoRoot, f))) continue;
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(repoRoot, f), join(dir, f));
  }
  const file = join(dir, '.github', 'workflows', 'release.yml');
  let text = readFileSync(file, 'utf8');
  for (const step of SKIPPED_HERE) {
    if (!text.includes(step)) throw new Error(`release.yml has no step ${step.trim()}`);
    text = text.replace(step, '');
  }
  writeFileSync(file, text);
}

/** CHANGELOG.md's section of the version, as the release's notes must be. */
function notes(): string {
  const text = readFileSync(join(repoRoot, 'CHANGELOG.md'), 'utf8');
  const start = text.indexOf(`\n## ${VERSION}\n`);
  const rest = text.slice(start + `\n## ${VERSION}\n`.length);
  const end = rest.indexOf('\n## ');
  return (end < 0 ? rest : rest.slice(0, end)).trim();
}

describe('release.yml through act, on a pushed version tag', () => {
  let w: World;
  beforeAll(async () => {
    w = await makeWorld('owner', 'devpkg', 'devpkg-wf-release-', wholeRepository);
    git(w.devpkgDir, 'tag', '-a', TAG, '-m', `devpkg ${VERSION}`);
  }, T);
  afterAll(async () => {
    await w?.close();
  });

  test(`the release of ${TAG} with its notes and the npm package, and ${MAJOR} moved to its commit`, async () => {
    w.standin.refs.set(`refs/tags/${MAJOR}`, '0'.repeat(39) + '1'); // an earlier release's
    const id = w.nextRunId();
    const payload = {
      ref: `refs/tags/${TAG}`,
      before: '0'.repeat(40),
      after: w.devpkgSha,
      created: true,
      deleted: false,
      forced: false,
      base_ref: null,
      repository: { name: 'devpkg', full_name: 'owner/devpkg', owner: { login: 'owner' }, default_branch: 'main' },
      sender: { login: 'maintainer' },
    };
    const run = await runIn(w, w.devpkgDir, '.github/workflows/release.yml', 'push', payload, { runId: id, timeoutMs: T - 60_000 });
    expectSuccess(run);
    expect(jobResults(run)).toEqual({ check: 'success', release: 'success' });
    expect(Object.keys(artifactsOf(w, 'owner/devpkg', id))).toEqual(['npm-package']);

    const releases = [...w.standin.releases.values()];
    expect(releases).toHaveLength(1);
    const rel = releases[0]!;
    expect(rel).toMatchObject({ tag_name: TAG, name: TAG, body: notes(), prerelease: false, draft: false });
    expect(rel.body).not.toBe('');
    expect(rel.assets.map((a) => a.name)).toEqual([`devpkg-${VERSION}.tgz`]);
    expect(Object.fromEntries(w.standin.refs)).toEqual({ [`refs/tags/${MAJOR}`]: w.devpkgSha });

    // The attached package, installed from that file alone as a user would, names the commit.
    const tgz = join(w.scratch, rel.assets[0]!.name);
    writeFileSync(tgz, rel.assets[0]!.data);
    const env = { PATH: `${dirname(process.execPath)}:${process.env.PATH}`, HOME: join(w.scratch, 'home'), npm_config_cache: join(w.scratch, 'npm-cache'), npm_config_update_notifier: 'false' };
    mkdirSync(env.HOME, { recursive: true });
    execFileSync('npm', ['install', '--global', '--prefix', join(w.scratch, 'prefix'), '--offline', '--no-audit', '--no-fund', tgz], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const v = spawnSync(join(w.scratch, 'prefix', 'bin', 'devpkg'), ['--version'], { env, encoding: 'utf8' });
    expect({ status: v.status, stdout: v.stdout }).toEqual({ status: 0, stdout: `devpkg ${VERSION} (commit ${w.devpkgSha.slice(0, 7)})\n` });
  }, T);
});

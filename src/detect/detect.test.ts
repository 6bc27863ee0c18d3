import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Git } from '../tools/git.js';
import { detectChanges, kappCompare, type DetectResult } from './detect.js';
import { removeTempDirs, TestRepo } from './test-repo.js';
import { tceDiff } from '../../test/support/detect.js';

const P = 'addons/packages';
const ids = (r: { name: string; version: string }[]) => r.map((v) => `${v.name}/${v.version}`);
const summary = (r: DetectResult) => ({ changed: ids(r.changed), removed: ids(r.removed) });

// Real git processes: generous on a busy 2-core machine.
jest.setTimeout(30000);
afterAll(removeTempDirs);

/** main: antrea 1.2.3 + 1.3.0, calico 3.19.1 (+ metadata, a test/ folder and a README). */
function baseRepo(): TestRepo {
  const repo = TestRepo.init();
  repo
    .addVersion(P, 'antrea', '1.2.3')
    .addVersion(P, 'antrea', '1.3.0')
    .addVersion(P, 'calico', '3.19.1')
    .write({
      [`${P}/antrea/metadata.yaml`]: 'kind: PackageMetadata\n',
      [`${P}/antrea/test/e2e.yaml`]: 'x: 1\n',
      [`${P}/antrea/hack/gen.sh`]: 'echo\n',
      'README.md': '# repo\n',
    });
  repo.commit('initial');
  return repo;
}

describe('detectChanges', () => {
  test('pull request: diffs from the merge-base, so later commits on base do not count', async () => {
    const repo = baseRepo();
    repo.checkout('feature', true);
    repo.write({ [`${P}/antrea/1.3.0/bundle/config/values.yaml`]: 'changed: true\n' }).commit('feature change');
    repo.checkout('main');
    const branchPoint = repo.git('merge-base', 'main', 'feature');
    repo.write({ [`${P}/calico/3.19.1/package.yaml`]: 'moved on\n' }).commit('main moves on');
    const git = await Git.create(repo.dir);

    const pr = await detectChanges({ ...tceDiff(git, P), base: 'main', head: 'feature' });
    expect(summary(pr)).toEqual({ changed: ['antrea/1.3.0'], removed: [] });
    expect(pr.mergeBase).toBe(branchPoint);
    expect(pr.from).toBe(branchPoint);
    expect(pr.head).toBe(repo.git('rev-parse', 'feature'));
    expect(pr.changed[0]).toMatchObject({ path: `${P}/antrea/1.3.0`, reasons: [`modified ${P}/antrea/1.3.0/bundle/config/values.yaml`] });

    // The same refs as a plain range also see main's own change (reverted from head's view).
    const range = await detectChanges({ ...tceDiff(git, P), base: 'main', head: 'feature', kind: 'range' });
    expect(summary(range)).toEqual({ changed: ['antrea/1.3.0', 'calico/3.19.1'], removed: [] });
    expect(range.mergeBase).toBeUndefined();
  });

  test('push range: before..after over several commits', async () => {
    const repo = baseRepo();
    const before = repo.head();
    repo.write({ [`${P}/antrea/1.2.3/package.yaml`]: 'a\n' }).commit('one');
    repo.addVersion(P, 'calico', '3.20.0').commit('two');
    const after = repo.write({ 'docs/notes.txt': 'not a package\n' }).commit('three');
    const git = await Git.create(repo.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: before, head: after, kind: 'range' });
    expect(summary(r)).toEqual({ changed: ['antrea/1.2.3', 'calico/3.20.0'], removed: [] });
    expect(r.base).toBe(before);
    expect(r.from).toBe(before);
  });

  test('renames: a version folder moved with its Package unchanged is no change; a rename inside a bundle is', async () => {
    const repo = baseRepo();
    const before = repo.head();
    repo.mv(`${P}/calico/3.19.1`, `${P}/calico/3.19.1+vmware.2`);
    repo.mv(`${P}/antrea/1.2.3/bundle/config/values.yaml`, `${P}/antrea/1.2.3/bundle/config/values-renamed.yaml`);
    repo.commit('renames');
    const git = await Git.create(repo.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range' });
    expect(summary(r)).toEqual({ changed: ['antrea/1.2.3'], removed: [] });
    expect(r.changed[0].reasons.some((x) => x.startsWith('renamed '))).toBe(true);
  });

  test('renames: a version folder moved with its Package changed: the new one changed, the old one removed', async () => {
    const repo = baseRepo();
    const before = repo.head();
    repo.mv(`${P}/calico/3.19.1`, `${P}/calico/3.19.1+vmware.2`);
    const file = `${P}/calico/3.19.1+vmware.2/package.yaml`;
    repo.write({ [file]: readFileSync(join(repo.dir, file), 'utf8').replaceAll('3.19.1', '3.19.1+vmware.2') });
    repo.commit('renames');
    const git = await Git.create(repo.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range' });
    expect(summary(r)).toEqual({ changed: ['calico/3.19.1+vmware.2'], removed: ['calico/3.19.1'] });
  });

  test('deletions: a deleted version folder is removed, not changed', async () => {
    const repo = baseRepo();
    const before = repo.head();
    repo.rm(`${P}/antrea/1.2.3`).commit('drop 1.2.3');
    const git = await Git.create(repo.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range' });
    expect(summary(r)).toEqual({ changed: [], removed: ['antrea/1.2.3'] });
    expect(r.removed[0].path).toBe(`${P}/antrea/1.2.3`);
  });

  test('metadata.yaml alone marks the highest version in kapp-controller order (build metadata counts)', async () => {
    const repo = TestRepo.init();
    // Byte-wise build metadata: "9-tkg" > "10-tkg", so +vmware.9-tkg.1 is the highest;
    // SemVer 2.0 (build ignored) would call them equal, a numeric reading would pick +vmware.10.
    for (const v of ['1.0.0+vmware.9-tkg.1', '1.0.0+vmware.10-tkg.1', '0.9.0', '1.0.0-rc.1']) repo.addVersion(P, 'cni', v);
    repo.write({ [`${P}/cni/metadata.yaml`]: 'a\n' });
    const before = repo.commit('initial');
    repo.write({ [`${P}/cni/metadata.yaml`]: 'b\n' }).commit('metadata');
    const git = await Git.create(repo.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range' });
    expect(summary(r)).toEqual({ changed: ['cni/1.0.0+vmware.9-tkg.1'], removed: [] });
    expect(r.changed[0].reasons[0]).toMatch(/metadata\.yaml changed/);

    // An injected ordering is used instead.
    const byLength = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range', versionCompare: (a, b) => a.length - b.length });
    expect(ids(byLength.changed)).toEqual(['cni/1.0.0+vmware.10-tkg.1']);
  });

  test('non-version folders, markdown and files outside the packages folder do not count', async () => {
    const repo = baseRepo();
    const before = repo.head();
    repo.write({
      [`${P}/antrea/test/e2e.yaml`]: 'x: 2\n',
      [`${P}/antrea/hack/gen.sh`]: 'echo 2\n',
      [`${P}/antrea/1.3.0/README.md`]: '# docs\n',
      'README.md': '# changed\n',
      'hack/tool.sh': 'x\n',
    });
    repo.commit('noise');
    const git = await Git.create(repo.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range' });
    expect(summary(r)).toEqual({ changed: [], removed: [] });
    // Without ignore globs the markdown file counts.
    const all = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range', ignore: [] });
    expect(summary(all)).toEqual({ changed: ['antrea/1.3.0'], removed: [] });
  });

  test('file names with spaces and + in version folders', async () => {
    const repo = baseRepo();
    const before = repo.head();
    repo.addVersion(P, 'pinniped', '0.24.4+update.2', { 'bundle/config/my overlay+1.yaml': 'a: b\n' }).commit('pinniped');
    const git = await Git.create(repo.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range' });
    expect(summary(r)).toEqual({ changed: ['pinniped/0.24.4+update.2'], removed: [] });
    expect(r.changed[0].reasons).toContain(`added ${P}/pinniped/0.24.4+update.2/bundle/config/my overlay+1.yaml`);
  });

  test('unknown refs: a clear error naming the ref', async () => {
    const repo = baseRepo();
    const git = await Git.create(repo.dir);
    await expect(detectChanges({ ...tceDiff(git, P), base: 'no-such-base' })).rejects.toThrow(
      /unknown git ref "no-such-base" \(base\).*no remote "origin"/,
    );
    await expect(detectChanges({ ...tceDiff(git, P), base: 'main', head: 'no-such-head' })).rejects.toThrow(/unknown git ref "no-such-head" \(head\)/);
    await expect(detectChanges({ ...tceDiff(git, P), base: '0000000000000000000000000000000000000000' })).rejects.toThrow(/all-zero commit/);
  });

  test('unrelated histories fail instead of reporting no changes', async () => {
    const repo = baseRepo();
    repo.git('checkout', '-q', '--orphan', 'other');
    repo.write({ 'x.txt': '1\n' }).commit('orphan');
    const git = await Git.create(repo.dir);
    await expect(detectChanges({ ...tceDiff(git, P), base: 'main', head: 'other' })).rejects.toThrow(/no common ancestor/);
  });
});

describe('detectChanges in a shallow clone', () => {
  /** main with 12 commits after the branch point; feature with 6 commits. Built once, cloned per test. */
  let origin: TestRepo;
  let branchPoint: string;
  beforeAll(() => {
    origin = baseRepo();
    for (let i = 0; i < 3; i++) origin.write({ 'log.txt': `pre ${i}\n` }).commit(`pre ${i}`);
    branchPoint = origin.head();
    origin.checkout('feature', true);
    origin.write({ [`${P}/antrea/1.3.0/bundle/config/values.yaml`]: 'feature\n' }).commit('feature 0');
    for (let i = 1; i < 6; i++) origin.write({ 'feature.txt': `${i}\n` }).commit(`feature ${i}`);
    origin.checkout('main');
    for (let i = 0; i < 12; i++) origin.write({ [`${P}/calico/3.19.1/bundle/config/values.yaml`]: `main ${i}\n` }).commit(`main ${i}`);
  }, 60000);

  test('deepens the fetch until the merge-base is found', async () => {
    const clone = origin.cloneShallow('feature', 1);
    const git = await Git.create(clone.dir);
    expect(await git.isShallow()).toBe(true);
    expect(await git.tryRevParse('main')).toBeUndefined();
    const log: string[] = [];
    const r = await detectChanges({ ...tceDiff(git, P), base: 'main', fetchStep: 2, log: (m) => log.push(m) });
    expect(summary(r)).toEqual({ changed: ['antrea/1.3.0'], removed: [] });
    expect(r.mergeBase).toBe(branchPoint);
    expect(r.base).toBe(origin.git('rev-parse', 'main'));
    expect(log.some((m) => /fetching it from origin/.test(m))).toBe(true);
    expect(log.filter((m) => /more commits of history/.test(m)).length).toBeGreaterThanOrEqual(2);
  });

  test('a base given as a commit is fetched too', async () => {
    const clone = origin.cloneShallow('feature', 1);
    const git = await Git.create(clone.dir);
    const r = await detectChanges({ ...tceDiff(git, P), base: origin.git('rev-parse', 'main') });
    expect(r.mergeBase).toBe(branchPoint);
    expect(summary(r)).toEqual({ changed: ['antrea/1.3.0'], removed: [] });
  });

  test('fails naming fetch-depth: 0 when the merge-base is beyond the limit', async () => {
    const clone = origin.cloneShallow('feature', 1);
    const git = await Git.create(clone.dir);
    await expect(detectChanges({ ...tceDiff(git, P), base: 'main', fetchStep: 1, maxFetchDepth: 3 })).rejects.toThrow(
      /shallow.*merge-base of base main and head HEAD is not in it \(deepened by 3 commits from origin\).*fetch-depth: 0/,
    );
  });

  test('an unknown base in a shallow clone names the ref', async () => {
    const clone = origin.cloneShallow('feature', 1);
    const git = await Git.create(clone.dir);
    await expect(detectChanges({ ...tceDiff(git, P), base: 'no-such-branch' })).rejects.toThrow(
      /unknown git ref "no-such-branch" \(base\).*fetching it from origin failed[\s\S]*no-such-branch/,
    );
  });

  test('a push range needs only the two commits, not the history between', async () => {
    const clone = origin.cloneShallow('main', 1);
    const git = await Git.create(clone.dir);
    const before = origin.git('rev-parse', 'main~5');
    const r = await detectChanges({ ...tceDiff(git, P), base: before, kind: 'range' });
    expect(summary(r)).toEqual({ changed: ['calico/3.19.1'], removed: [] });
  });
});

describe('kappCompare', () => {
  const compare = kappCompare();
  test.each([
    ['1.0.0+vmware.9-tkg.1', '1.0.0+vmware.10-tkg.1', 1],
    ['1.0.0', '1.0.0+vmware.1', -1],
    ['0.13.3-dev', '0.13.3+vmware.1-tkg.1', -1],
    ['0.13.3+vmware.1-tkg.1', '0.13.4-dev.1', -1],
    ['1.10.0', '1.9.0', 1],
    ['not-a-version', '0.0.1', -1],
    ['a-folder', 'b-folder', -1],
    ['1.0.0+vmware.1', '1.0.0+vmware.1', 0],
  ])('%s vs %s', (a, b, sign) => {
    expect(Math.sign(compare(a, b))).toBe(sign);
    expect(Math.sign(compare(b, a)) + sign).toBe(0);
  });
});

// The layout contract (issue 35): what every layout must do, run against each one on a small git
// repository made here in its own form (test/support/layout-fixtures.ts gives each layout's
// fixture; the assertions are shared). A new layout is one more fixture in FIXTURES.
import { jest } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectChanges } from '../detect/detect.js';
import { removeTempDirs, TestRepo } from '../detect/test-repo.js';
import { DevpkgError } from '../errors.js';
import { closeGitReaders, Git } from '../tools/git.js';
import { execTool } from '../tools/exec.js';
import { withTrees } from '../../test/support/detect.js';
import { FIXTURES, imageOf, type LayoutFixture } from '../../test/support/layout-fixtures.js';
import { commitTree, Layouts, type LoadedPackage, type Tree } from './index.js';
import { LAYOUTS } from './types.js';

jest.setTimeout(30000);
const tmps: string[] = [];
afterAll(async () => {
  await closeGitReaders();
  removeTempDirs();
  for (const t of tmps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const tmp = () => {
  const t = mkdtempSync(join(tmpdir(), 'devpkg-contract-'));
  tmps.push(t);
  return t;
};
const id = (r: { name: string; version: string }) => `${r.name}/${r.version}`;

test('every layout has a contract fixture', () => {
  expect(FIXTURES.map((f) => f.layout).sort()).toEqual([...LAYOUTS].sort());
});

describe.each(FIXTURES.map((f) => [f.layout, f] as const))('layout %s keeps the contract', (_name, fx: LayoutFixture) => {
  const open = (choice: 'auto' | LayoutFixture['layout'] = fx.layout) => Layouts.open(choice, fx.open);
  const seeded = () => {
    const r = TestRepo.init();
    fx.seed(r);
    return { r, a: r.commit('seed') };
  };
  const at = async (r: TestRepo, commit: string): Promise<Tree> => commitTree(await Git.create(r.dir), commit);
  const touched = async (r: TestRepo, base: string) => {
    const got = await detectChanges({ ...withTrees(await Git.create(r.dir), open()), base, kind: 'range' });
    return { changed: got.changed.map(id), removed: got.removed.map(id) };
  };
  const loadAt = async (layouts: Layouts, tree: Tree, want: string, o: { base?: Tree } = {}) => {
    const refs = await layouts.list(tree);
    const ref = refs.find((x) => id(x) === want);
    if (!ref) throw new Error(`${want} is not listed (listed: ${refs.map(id).join(', ')})`);
    return layouts.load(tree, ref, o);
  };
  const build = () => ({ root: '', exec: execTool, tmp: tmp(), log: () => undefined });

  test('list: the right package versions, each named by its layout, nothing from examples/; auto lists the same', async () => {
    const { r, a } = seeded();
    const tree = await at(r, a);
    const refs = await open().list(tree);
    expect(refs.map(id)).toEqual(fx.listed);
    expect(refs.every((x) => x.layout === fx.layout && !x.path.startsWith('examples/'))).toBe(true);
    expect((await open('auto').list(await at(r, a))).map((x) => `${x.layout}:${id(x)}`)).toEqual(fx.listed.map((x) => `${fx.layout}:${x}`));
  });

  test('touched: a content change touches its package version', async () => {
    const { r, a } = seeded();
    fx.contentEdit(r);
    r.commit('edit');
    await expect(touched(r, a)).resolves.toEqual({ changed: [fx.listed[0]], removed: [] });
  });

  test('touched: a pure rename touches nothing and removes nothing', async () => {
    const { r, a } = seeded();
    fx.pureRename(r);
    r.commit('rename');
    await expect(touched(r, a)).resolves.toEqual({ changed: [], removed: [] });
  });

  test('touched: a comment-only edit of the Package and metadata files touches nothing', async () => {
    const { r, a } = seeded();
    fx.commentEdit(r);
    r.commit('comments');
    await expect(touched(r, a)).resolves.toEqual({ changed: [], removed: [] });
  });

  test('touched: a removed package is listed as removed', async () => {
    const { r, a } = seeded();
    fx.remove(r);
    r.commit('remove');
    await expect(touched(r, a)).resolves.toEqual({ changed: [], removed: [fx.listed[1]] });
  });

  test('load: the Package and the bundle of the commit given, not the working tree', async () => {
    const r = TestRepo.init();
    fx.seed(r, 'a');
    const first = r.commit('A');
    fx.mark(r, 'b');
    const second = r.commit('B'); // the working tree is at B
    const layouts = open();
    for (const [commit, m] of [[first, 'a'], [second, 'b']] as const) {
      const loaded = await loadAt(layouts, await at(r, commit), fx.listed[0]);
      expect(loaded.pkg.pkg.spec.releaseNotes).toBe(`marker ${m}`);
      const got = await layouts.bundle(loaded, { ...build(), root: r.dir });
      if (fx.push.kind === 'image') expect(got).toEqual({ image: imageOf('a', m) });
      else expect('folder' in got && readFileSync(join(got.folder, fx.push.file!), 'utf8')).toBe(`marker: ${m}\n`);
    }
  });

  test('released version: as the base sees it', async () => {
    const { r, a } = seeded();
    const c = fx.release(r, a);
    const head = r.head();
    const loaded = await loadAt(open(), await at(r, head), `a/${c.version}`, { base: await at(r, c.base) });
    expect(loaded.released).toBe(c.released);
    if (c.not) expect(loaded.released).not.toBe(c.not);
  });

  test('push plan: what is pushed, built or used as it is', async () => {
    const { r, a } = seeded();
    const loaded: LoadedPackage = await loadAt(open(), await at(r, a), fx.listed[0]);
    expect(loaded.push.kind).toBe({ folder: 'folder', build: 'build', image: 'as-is' }[fx.push.kind]);
    const got = await open().bundle(loaded, { ...build(), root: r.dir });
    if (fx.push.kind === 'image') expect(got).toEqual({ image: imageOf('a', 'a') });
    else expect(Object.keys(got)).toEqual(['folder']);
  });

  test('bad input: a broken Package file is refused with its file and line; the other package still lists and loads', async () => {
    const { r } = seeded();
    const bad = fx.broken(r);
    const c = r.commit('break');
    const layouts = open();
    const tree = await at(r, c);
    expect((await layouts.list(tree)).map(id)).toEqual(fx.listed.map((x) => (x.startsWith('b/') ? bad.ref : x)));
    const err = await loadAt(layouts, tree, bad.ref).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DevpkgError);
    expect({ file: (err as DevpkgError).file, line: (err as DevpkgError).line }).toEqual({ file: bad.file, line: bad.line });
    await expect(loadAt(layouts, tree, fx.listed[0])).resolves.toMatchObject({ name: 'a' });
  });
});

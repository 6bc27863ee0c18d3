import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { removeTempDirs, TestRepo } from '../detect/test-repo.js';
import { Layouts, workTree } from './index.js';

afterAll(removeTempDirs);

const TCE = new URL('../../examples/tce-packages', import.meta.url).pathname;
const KCTRL = new URL('../../examples/kctrl', import.meta.url).pathname;

describe('workTree', () => {
  test('a folder with its own .git (the action checked out at .devpkg-action) is another repository: not listed', async () => {
    const r = TestRepo.init();
    cpSync(TCE, r.dir, { recursive: true });
    r.commit('packages');
    // What the reusable workflow does: devpkg, examples and all, checked out inside the workspace.
    const action = join(r.dir, '.devpkg-action');
    cpSync(TCE, join(action, 'examples', 'tce-packages'), { recursive: true });
    cpSync(KCTRL, join(action, 'examples', 'kctrl'), { recursive: true });
    mkdirSync(join(action, '.git'));
    writeFileSync(join(action, 'action.yml'), 'name: devpkg\n');
    // An untracked folder without .git is still the repository's own (a package being written).
    writeFileSync(join(r.dir, 'notes.txt'), 'mine\n');

    const files = await workTree(r.dir).files();
    expect(files.filter((f) => f.startsWith('.devpkg-action'))).toEqual([]);
    expect(files).toContain('notes.txt');
    expect(files).toContain('addons/packages/antrea/1.5.3/package.yaml');

    const layouts = Layouts.open('auto', { packagesDir: 'addons/packages' });
    const [ref] = await layouts.find(workTree(r.dir), [{ name: 'antrea', version: '1.5.3' }]);
    expect(ref).toMatchObject({ path: 'addons/packages/antrea/1.5.3', layout: 'tce' });
    expect((await layouts.list(workTree(r.dir))).filter((x) => x.path.startsWith('.devpkg-action'))).toEqual([]);
  });

  test('the root itself may hold .git (it is the repository being read)', async () => {
    const r = TestRepo.init();
    r.write({ 'a/b.txt': 'x\n' }).commit('one');
    expect(await workTree(r.dir).files()).toEqual(['a/b.txt']);
  });
});

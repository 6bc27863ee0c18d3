// What callers branch on is data the layout returns: each example's push plan, the tools it
// needs, what bootstrap takes and where its problems go, read through the one seam (index.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleSource, Layouts, problemFileOf, toolsOf, workTree, type LoadedPackage } from './index.js';

const own = (file: string) => /image: (\S+)/.exec(readFileSync(file, 'utf8'))![1]!;
const REPOSITORY_FILE = 'packages/simple-app.devpkg.example.com/1.1.0.yml';

async function loadExample(root: string, name: string, version: string): Promise<LoadedPackage> {
  const tree = workTree(resolve(root));
  const layouts = Layouts.open('auto', { releasedVersion: '1.2.0' });
  const [ref] = await layouts.find(tree, [{ name, version }]);
  return layouts.load(tree, ref!);
}

describe('the push plan, tools, bootstrap source and problem file of each layout', () => {
  test.each([
    ['tce', 'examples/tce-packages', 'antrea', '1.5.3', { kind: 'folder', folder: 'addons/packages/antrea/1.5.3/bundle' }, [], { folder: 'addons/packages/antrea/1.5.3', config: 'addons/packages/antrea/1.5.3/bundle/config' }, 'addons/packages/antrea/1.5.3/package.yaml'],
    ['kctrl', 'examples/kctrl', 'simple-app', '1.2.0', { kind: 'build', file: 'simple-app/package-build.yml', tools: ['ytt', 'kbld'] }, ['ytt', 'kbld'], undefined, 'simple-app'],
    ['repository', 'examples/repository', 'simple-app', '1.1.0', { kind: 'as-is', image: own(`examples/repository/${REPOSITORY_FILE}`) }, [], undefined, REPOSITORY_FILE],
    ['plain', 'examples/plain', 'hello', '1.0.0', { kind: 'folder', folder: 'packages/hello/1.0.0/bundle' }, [], undefined, 'packages/hello/1.0.0/package.yml'],
    ['plain', 'examples/plain', 'hello', '1.1.0', { kind: 'as-is', image: own('examples/plain/packages/hello/1.1.0/package.yml') }, [], undefined, 'packages/hello/1.1.0/package.yml'],
  ])('%s (%s)', async (layout, root, name, version, push, tools, bootstrap, problemFile) => {
    const loaded = await loadExample(root, name, version);
    expect(loaded.layout).toBe(layout);
    expect(loaded.push).toMatchObject(push);
    expect(toolsOf([loaded])).toEqual(tools);
    expect(loaded.bootstrap).toEqual(bootstrap);
    expect(problemFileOf({ name, version, path: loaded.path, layout })).toBe(problemFile);
  });

  test('a ref without a layout (a version folder named by hand) has its problems on its package.yaml', () => {
    expect(problemFileOf({ name: 'antrea', version: '1.5.3', path: 'antrea/1.5.3' })).toBe('antrea/1.5.3/package.yaml');
  });

  test('carried out: a folder is the tree\'s own, the Package\'s own bundle is used as it is, a folder gone is named', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'devpkg-push-plan-'));
    try {
      const o = { root: resolve('examples'), exec: async () => ({ code: 1, stdout: '', stderr: '' }), tmp, log: () => undefined };
      const tce = await loadExample('examples/tce-packages', 'antrea', '1.5.3');
      expect(await bundleSource(tce, o)).toEqual({ folder: resolve('examples/tce-packages/addons/packages/antrea/1.5.3/bundle') });
      const repo = await loadExample('examples/repository', 'simple-app', '1.1.0');
      expect(await bundleSource(repo, o)).toEqual({ image: own(`examples/repository/${REPOSITORY_FILE}`) });
      const gone = { ...tce, push: { kind: 'folder' as const, folder: 'addons/packages/antrea/9.9.9/bundle' } };
      await expect(bundleSource(gone, o)).rejects.toMatchObject({
        message: expect.stringContaining('addons/packages/antrea/9.9.9/bundle is not in the working tree'),
        file: 'addons/packages/antrea/1.5.3/package.yaml',
        line: 1,
      });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

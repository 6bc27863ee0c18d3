// A TCE version folder without bundle/ (many of TCE's: their Package fetches a bundle built
// elsewhere, e.g. fluxcd-helm-controller/0.28.1): nothing to push; the Package's own bundle is
// installed as it is, and the plan says so (it used to print `imgpkg push -f <folder>/bundle`, a
// folder that is not there). Found by the oracle on vmware-tanzu/community-edition.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { plan } from '../pipeline/plan.js';

const EXAMPLE = resolve('examples/tce-packages');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'devpkg-tce-own-'));
  cpSync(EXAMPLE, dir, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const request = (root: string) => ({ root, packagesDir: 'addons/packages', selection: { kind: 'explicit' as const, packages: ['antrea/1.5.3'] }, refName: '', seq: { timestamp: new Date('2026-01-02T03:04:05Z') }, place: { cwd: root, written: false, unwritten: 'comment' as const } });
const own = () => /image: (\S+)/.exec(readFileSync(join(EXAMPLE, 'addons/packages/antrea/1.5.3/package.yaml'), 'utf8'))![1]!;

test('without bundle/: the Package\'s own bundle, no push of a missing folder, no bootstrap overlay', async () => {
  rmSync(join(dir, 'addons/packages/antrea/1.5.3/bundle'), { recursive: true });
  const [p] = (await plan(request(dir))).packages;
  expect(p?.verdict).toBe('planned');
  expect(p?.plan?.bundleImage).toBe(own());
  expect(p?.plan?.commands.join('\n')).not.toMatch(/imgpkg push .*antrea\/1\.5\.3\/bundle/);
  expect(p?.plan?.notes?.join('\n')).toContain(`no addons/packages/antrea/1.5.3/bundle: the Package's own bundle (${own()}) is installed as it is`);
  expect(p?.plan?.overlayPath).toBe('');
});

test('with bundle/: the folder is pushed as before', async () => {
  const [p] = (await plan(request(dir))).packages;
  expect(p?.plan?.bundleImage).not.toBe(own());
  expect(p?.plan?.commands.join('\n')).toMatch(/imgpkg push .*antrea\/1\.5\.3\/bundle/);
  expect(p?.plan?.overlayPath).not.toBe('');
});

test('the released version (the baseline of `installBaseline`) takes bundle/ when it is there, the Package\'s own bundle when it is gone', async () => {
  const { Layouts, workTree } = await import('./index.js');
  const file = 'addons/packages/antrea/1.5.3/package.yaml';
  const tree = workTree(dir);
  const layouts = Layouts.open('auto', {});
  const [ref] = await layouts.find(tree, [{ name: 'antrea', version: '1.5.3' }]);
  const loaded = await layouts.load(tree, ref!);
  const tmp = mkdtempSync(join(tmpdir(), 'devpkg-tce-rel-'));
  try {
    const got = await loaded.releasedSource({ root: dir, exec: async () => ({ code: 1, stdout: '', stderr: '' }), tmp, log: () => undefined });
    expect(got?.bundle).toEqual({ folder: join(dir, 'addons/packages/antrea/1.5.3/bundle') });
    rmSync(join(dir, 'addons/packages/antrea/1.5.3/bundle'), { recursive: true });
    const own = await loaded.releasedSource({ root: dir, exec: async () => ({ code: 1, stdout: '', stderr: '' }), tmp, log: () => undefined });
    expect(own?.bundle).toEqual({ image: /image: (\S+)/.exec(readFileSync(join(dir, file), 'utf8'))![1] });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test('a packages folder below a folder named bundle: the version folder\'s own bundle/ still counts', async () => {
  const nested = mkdtempSync(join(tmpdir(), 'devpkg-tce-nested-'));
  try {
    cpSync(EXAMPLE, join(nested, 'bundle'), { recursive: true });
    const [p] = (await plan({ ...request(nested), packagesDir: 'bundle/addons/packages' })).packages;
    expect(p?.plan?.commands.join('\n')).toMatch(/imgpkg push .*bundle\/addons\/packages\/antrea\/1\.5\.3\/bundle/);
  } finally {
    rmSync(nested, { recursive: true, force: true });
  }
});

import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findVendoredLibrary, parseLibraryGets, pickLibrary } from './vendir.js';

describe('parseLibraryGets', () => {
  test('finds library.get calls on ytt code lines, skipping comments', () => {
    const text = [
      '#@ load("@ytt:library", "library")',
      '#! #@ cni_old = library.get("addons/packages/antrea/0.1.0/bundle/config")',
      '#@ cni_antrea_lib = library.get("addons/packages/antrea/1.5.3/bundle/config")',
      "#@ cni_calico_lib = library.get('addons/packages/calico/3.24.1/bundle/config')",
      'plain: yaml',
    ].join('\n');
    expect(parseLibraryGets(text, 'ytt/vendir/cni/cni.lib.yaml')).toEqual([
      { libFile: 'ytt/vendir/cni/cni.lib.yaml', line: 3, library: 'addons/packages/antrea/1.5.3/bundle/config' },
      { libFile: 'ytt/vendir/cni/cni.lib.yaml', line: 4, library: 'addons/packages/calico/3.24.1/bundle/config' },
    ]);
  });
});

describe('pickLibrary', () => {
  const gets = [
    { libFile: 'ytt/vendir/cni/cni.lib.yaml', line: 3, library: 'addons/packages/antrea/1.5.3/bundle/config' },
    { libFile: 'ytt/vendir/cni/cni.lib.yaml', line: 4, library: 'addons/packages/calico/3.24.1/bundle/config' },
  ];
  test.each([
    ['antrea', [{ dir: 'ytt/vendir/cni/_ytt_lib/addons/packages/antrea/1.5.3/bundle/config', version: '1.5.3' }]],
    ['calico', [{ dir: 'ytt/vendir/cni/_ytt_lib/addons/packages/calico/3.24.1/bundle/config', version: '3.24.1' }]],
    ['antre', []],
  ])('%s', (name, want) => {
    expect(pickLibrary(gets, name).map(({ dir, version }) => ({ dir, version }))).toEqual(want);
  });
});

describe('findVendoredLibrary', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'devpkg-vendir-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  test('reads the .lib.yaml files and names the vendored folder', async () => {
    await mkdir(path.join(dir, 'ytt/vendir/cni/_ytt_lib/x'), { recursive: true });
    await writeFile(path.join(dir, 'ytt/vendir/cni/cni.lib.yaml'), '#@ l = library.get("addons/packages/antrea/1.5.2/bundle/config")\n');
    await writeFile(path.join(dir, 'ytt/vendir/cni/_ytt_lib/x/other.lib.yaml'), '#@ l = library.get("addons/packages/antrea/9.9.9/bundle/config")\n');
    const lib = await findVendoredLibrary(dir, 'cni', 'antrea');
    expect(lib).toMatchObject({ dir: 'ytt/vendir/cni/_ytt_lib/addons/packages/antrea/1.5.2/bundle/config', version: '1.5.2', line: 1 });
  });

  test('says what it looked at when nothing matches', async () => {
    await mkdir(path.join(dir, 'ytt/vendir/cni'), { recursive: true });
    await writeFile(path.join(dir, 'ytt/vendir/cni/cni.lib.yaml'), '#@ l = library.get("addons/packages/calico/3.24.1/bundle/config")\n');
    await expect(findVendoredLibrary(dir, 'cni', 'antrea')).rejects.toThrow(/load no library of antrea \(library.get calls: addons\/packages\/calico\/3.24.1\/bundle\/config\)/);
    await rm(path.join(dir, 'ytt/vendir/cni/cni.lib.yaml'));
    await expect(findVendoredLibrary(dir, 'cni', 'antrea')).rejects.toThrow(/vendors no libraries/);
  });

  test('folders not named after the category (kapp-controller, vsphere_cpi); the category folder wins a tie', async () => {
    const lib = (folder: string, name: string, text: string) =>
      mkdir(path.join(dir, 'ytt/vendir', folder), { recursive: true }).then(() => writeFile(path.join(dir, 'ytt/vendir', folder, name), text));
    await lib('vsphere_cpi', 'vsphere_cpi.lib.yaml', '#@ vsphere_cpi_lib = library.get("addons/packages/vsphere-cpi/1.22.5/bundle/config")\n');
    await lib('kapp-controller', 'kapp-controller.lib.yaml', '#@ k = library.get("addons/packages/kapp-controller/0.38.5/bundle/config")\n');
    await lib('addons-management', 'old.lib.yaml', '#@ k = library.get("addons/packages/kapp-controller/0.30.0/bundle/config")\n');
    expect(await findVendoredLibrary(dir, 'cloud-provider', 'vsphere-cpi')).toMatchObject({ dir: 'ytt/vendir/vsphere_cpi/_ytt_lib/addons/packages/vsphere-cpi/1.22.5/bundle/config', version: '1.22.5' });
    expect(await findVendoredLibrary(dir, 'addons-management', 'kapp-controller')).toMatchObject({ version: '0.30.0' });
    await expect(findVendoredLibrary(dir, 'other', 'kapp-controller')).rejects.toThrow(/kapp-controller has several vendored libraries/);
  });
});

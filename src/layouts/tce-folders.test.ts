import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DevpkgError } from '../errors.js';
import { compareVersionFolders, listPackages, loadVersion, normalizePackagesDir, versionEntries } from './tce-folders.js';

const pkgYaml = (refName: string, version: string, name = `${refName}.${version}`) => `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: ${name}
spec:
  refName: ${refName}
  version: ${version}
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: example.com/x@sha256:${'0'.repeat(64)}
`;

let root: string;

async function put(rel: string, text: string): Promise<void> {
  const file = path.join(root, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'devpkg-layout-'));
  const P = 'addons/packages';
  await put(`${P}/antrea/metadata.yaml`, 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: antrea.community.tanzu.vmware.com\n');
  await put(`${P}/antrea/0.13.3/package.yaml`, pkgYaml('antrea.community.tanzu.vmware.com', '0.13.3'));
  await put(`${P}/antrea/0.13.3/bundle/.imgpkg/images.yml`, 'images: []\n');
  await put(`${P}/antrea/1.5.3/package.yaml`, pkgYaml('antrea.community.tanzu.vmware.com', '1.5.3'));
  await put(`${P}/antrea/0.24.4+update.2/package.yaml`, pkgYaml('antrea.community.tanzu.vmware.com', '0.24.4+update.2'));
  await put(`${P}/antrea/0.24.4+update.10/package.yaml`, pkgYaml('antrea.community.tanzu.vmware.com', '0.24.4+update.10'));
  await put(`${P}/antrea/0.24.4/package.yaml`, pkgYaml('antrea.community.tanzu.vmware.com', '0.24.4'));
  await put(`${P}/antrea/test/e2e/antrea_test.go`, 'package e2e\n');
  await put(`${P}/antrea/hack/README.md`, 'not a version\n');
  await put(`${P}/calico/3.22.1/package.yaml`, pkgYaml('calico.community.tanzu.vmware.com', '3.22.1'));
  await put(`${P}/calico/3.22.2/package.yaml`, pkgYaml('calico.community.tanzu.vmware.com', '3.22.1'));
  await put(`${P}/docs/README.md`, 'not a package\n');
  await put(`${P}/README.md`, 'packages\n');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('listPackages', () => {
  test('finds packages and their version folders, skipping folders without package.yaml', async () => {
    const pkgs = await listPackages(root, './addons/packages/');
    expect(pkgs.map((p) => p.name)).toEqual(['antrea', 'calico']);
    const antrea = pkgs[0]!;
    expect(antrea.path).toBe('addons/packages/antrea');
    expect(antrea.metadataFile).toBe('addons/packages/antrea/metadata.yaml');
    // kapp-controller order: build metadata counts, numerically (update.2 < update.10).
    expect(antrea.versions).toEqual([
      { version: '0.13.3', path: 'addons/packages/antrea/0.13.3', packageFile: 'addons/packages/antrea/0.13.3/package.yaml' },
      { version: '0.24.4', path: 'addons/packages/antrea/0.24.4', packageFile: 'addons/packages/antrea/0.24.4/package.yaml' },
      { version: '0.24.4+update.2', path: 'addons/packages/antrea/0.24.4+update.2', packageFile: 'addons/packages/antrea/0.24.4+update.2/package.yaml' },
      { version: '0.24.4+update.10', path: 'addons/packages/antrea/0.24.4+update.10', packageFile: 'addons/packages/antrea/0.24.4+update.10/package.yaml' },
      { version: '1.5.3', path: 'addons/packages/antrea/1.5.3', packageFile: 'addons/packages/antrea/1.5.3/package.yaml' },
    ]);
    expect(pkgs[1]!.metadataFile).toBeUndefined();
    expect(pkgs[1]!.versions.map((v) => v.version)).toEqual(['3.22.1', '3.22.2']);
  });

  test('a missing packages folder lists nothing', async () => {
    expect(await listPackages(root, 'packages')).toEqual([]);
  });

  test('the example repository', async () => {
    const example = fileURLToPath(new URL('../../examples/tce-packages', import.meta.url));
    const pkgs = await listPackages(example, 'addons/packages');
    expect(pkgs.map((p) => [p.name, p.versions.map((v) => v.version)])).toEqual([
      ['antrea', ['1.5.3']],
      ['calico', ['3.22.1']],
    ]);
    const v = await loadVersion(example, 'addons/packages', 'antrea', '1.5.3');
    expect(v.pkg.pkg.metadata.name).toBe('antrea.community.tanzu.vmware.com.1.5.3');
    expect(v.pkg.pkg.spec.template?.spec?.fetch?.[0]?.imgpkgBundle?.image).toMatch(/^projects.registry.vmware.com\/tce\/antrea@sha256:[0-9a-f]{64}$/);
    const c = await loadVersion(example, 'addons/packages', 'calico', '3.22.1');
    expect(c.pkg.pkg.spec.refName).toBe('calico.community.tanzu.vmware.com');
  });
});

describe('loadVersion', () => {
  test('reads and checks a version folder with build metadata', async () => {
    const v = await loadVersion(root, 'addons/packages', 'antrea', '0.24.4+update.2');
    expect(v).toMatchObject({
      name: 'antrea',
      version: '0.24.4+update.2',
      path: 'addons/packages/antrea/0.24.4+update.2',
      packageFile: 'addons/packages/antrea/0.24.4+update.2/package.yaml',
    });
    expect(v.pkg.file).toBe('addons/packages/antrea/0.24.4+update.2/package.yaml');
    expect(v.pkg.pkg.spec.version).toBe('0.24.4+update.2');
  });

  test.each([
    ['antrea', '9.9.9', /unknown version 9.9.9 of package antrea: no folder addons\/packages\/antrea\/9.9.9 holding a package.yaml; known versions: 0.13.3, 0.24.4, 0.24.4\+update.2, 0.24.4\+update.10, 1.5.3/],
    ['antrea', 'test', /unknown version test of package antrea/],
    ['cilium', '1.0.0', /unknown package cilium: no folder addons\/packages\/cilium with a metadata.yaml or a version folder; known: antrea, calico/],
    ['docs', '1.0.0', /unknown package docs: .*known: antrea, calico/],
    ['../addons', '1.0.0', /unknown package \.\.\/addons/],
  ])('%s %s: clear error', async (name, version, message) => {
    await expect(loadVersion(root, 'addons/packages', name, version)).rejects.toThrow(message);
  });

  test('a folder name that disagrees with spec.version is a warning at the spec.version line; spec.version counts', async () => {
    const loaded = await loadVersion(root, 'addons/packages', 'calico', '3.22.2');
    expect(loaded.version).toBe('3.22.2');
    expect(loaded.pkg.pkg.spec.version).toBe('3.22.1');
    expect(loaded.pkg.warnings).toEqual([
      {
        path: 'addons/packages/calico/3.22.2/package.yaml',
        line: 7,
        severity: 'warning',
        message:
          'spec.version 3.22.1 does not match its version folder 3.22.2; devpkg uses 3.22.1 as the released version (rename the folder to 3.22.1, or set spec.version and metadata.name to 3.22.2)',
      },
    ]);
  });

  test('a broken package.yaml reports its path relative to the repository', async () => {
    await put('addons/packages/calico/3.22.1/package.yaml', pkgYaml('calico.community.tanzu.vmware.com', 'v3.22.1', 'calico.community.tanzu.vmware.com.3.22.1'));
    const err = (await loadVersion(root, 'addons/packages', 'calico', '3.22.1').catch((e: unknown) => e)) as DevpkgError;
    expect(err.message).toMatch(/spec.version "v3.22.1" must be strict semver without a leading "v"/);
    expect(err.file).toBe('addons/packages/calico/3.22.1/package.yaml');
    expect(err.line).toBe(7);
  });
});

describe('pure helpers', () => {
  test.each([
    ['addons/packages', 'addons/packages'],
    ['./addons/packages/', 'addons/packages'],
    ['addons//packages', 'addons/packages'],
    ['.', ''],
    ['packages\\core', 'packages/core'],
  ])('normalizePackagesDir(%j) = %j', (input, out) => {
    expect(normalizePackagesDir(input)).toBe(out);
  });

  test.each([
    ['1.0.0', '1.0.0+vmware.1', -1],
    ['1.0.0+vmware.9-tkg.1', '1.0.0+vmware.10-tkg.1', 1],
    ['1.0.0-dev', '1.0.0', -1],
    ['1.0.0', 'hack', -1],
    ['hack', 'test', -1],
  ])('compareVersionFolders(%s, %s) = %d', (a, b, sign) => {
    expect(Math.sign(compareVersionFolders(a, b))).toBe(sign);
  });

  test('versionEntries keeps only folders with a package.yaml', () => {
    expect(
      versionEntries('p/x', [
        { name: '2.0.0', hasPackageFile: true },
        { name: 'test', hasPackageFile: false },
        { name: '1.0.0', hasPackageFile: true },
      ]).map((v) => v.packageFile),
    ).toEqual(['p/x/1.0.0/package.yaml', 'p/x/2.0.0/package.yaml']);
  });
});

describe('the TCE layout lists version folders', () => {
  test('every version folder of the packages-dir, ordered by name and version (kapp-controller order), the packages-dir normalised', async () => {
    const { Layouts, memoryTree } = await import('./index.js');
    const pkg = 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\n';
    const files = Object.fromEntries(['antrea/1.10.0', 'antrea/1.2.3', 'antrea/1.3.0', 'calico/3.19.1'].map((v) => [`addons/packages/${v}/package.yaml`, pkg]));
    const tree = memoryTree({ ...files, 'addons/packages/antrea/test/e2e.yaml': 'x: 1\n', 'addons/packages/antrea/metadata.yaml': 'kind: PackageMetadata\n' });
    const refs = await Layouts.open('tce', { packagesDir: './addons/packages/' }).list(tree);
    expect(refs.map((r) => `${r.name}/${r.version}`)).toEqual(['antrea/1.2.3', 'antrea/1.3.0', 'antrea/1.10.0', 'calico/3.19.1']);
  });
});

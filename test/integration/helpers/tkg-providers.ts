// The real providers tree of tanzu-framework v0.25.4 (TKG 1.6, TCE 0.12), read from the shared
// fixtures beside the repository (never copied into it), and packages made from what it vendors.
import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { repoRoot } from './run.js';

/** ../shared beside the repository; DEVPKG_SHARED_DIR names it when the checkout is elsewhere (a git worktree). */
export const SHARED_DIR = process.env.DEVPKG_SHARED_DIR || path.join(repoRoot, '..', 'shared');
export const TKG_PROVIDERS = path.join(SHARED_DIR, 'fixtures', 'tkg-providers-v0.25.4', 'providers');
export const EDIT_ANNOTATION = 'devpkg.dev/edited-in-test';

/** Copies the tree to `dest`, writable as a developer's ~/.config/tanzu/tkg/providers is (the shared copy is read-only). */
export async function copyProviders(dest: string): Promise<void> {
  try {
    await stat(path.join(TKG_PROVIDERS, 'config.yaml'));
  } catch {
    throw new Error(`${TKG_PROVIDERS} is missing: these tests read the real tanzu-framework v0.25.4 providers tree from shared/ beside the repository (or DEVPKG_SHARED_DIR)`);
  }
  await mkdir(path.dirname(dest), { recursive: true });
  await cp(TKG_PROVIDERS, dest, { recursive: true });
  await makeWritable(dest);
}

async function makeWritable(p: string): Promise<void> {
  const s = await stat(p);
  await chmod(p, s.mode | 0o200);
  if (s.isDirectory()) for (const e of await readdir(p)) await makeWritable(path.join(p, e));
}

/** sha256 and mode of every file, and the mode of every folder, under `dir`. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (rel: string): Promise<void> => {
    for (const e of await readdir(path.join(dir, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      const s = await stat(path.join(dir, r));
      if (e.isDirectory()) {
        out[`${r}/`] = (s.mode & 0o7777).toString(8);
        await walk(r);
      } else {
        out[r] = `${(s.mode & 0o7777).toString(8)} ${createHash('sha256').update(await readFile(path.join(dir, r))).digest('hex')}`;
      }
    }
  };
  await walk('');
  return out;
}

export interface VendoredPackage {
  name: string;
  /** The addon type of the providers' own ClusterResourceSet for it. */
  addonType: string;
  /** Where the tree vendors it: ytt/vendir/<folder>/_ytt_lib/addons/packages/<name>/<version>/bundle/config. */
  vendirFolder: string;
  version: string;
  /** The object the edit annotates. */
  edit: { kind: string; name: string };
  /** examples/tce-packages has this version (its package.yaml and metadata.yaml are used). */
  example?: boolean;
}

export const VENDORED: VendoredPackage[] = [
  { name: 'antrea', addonType: 'cni/antrea', vendirFolder: 'cni', version: '1.5.3', edit: { kind: 'DaemonSet', name: 'antrea-agent' }, example: true },
  { name: 'calico', addonType: 'cni/calico', vendirFolder: 'cni', version: '3.22.1', edit: { kind: 'DaemonSet', name: 'calico-node' }, example: true },
  { name: 'kapp-controller', addonType: 'addons-management/kapp-controller', vendirFolder: 'kapp-controller', version: '0.38.5', edit: { kind: 'Deployment', name: 'kapp-controller' } },
  { name: 'vsphere-cpi', addonType: 'cloud-provider/vsphere-cpi', vendirFolder: 'vsphere_cpi', version: '1.22.5', edit: { kind: 'DaemonSet', name: 'vsphere-cloud-controller-manager' } },
];

export function vendoredDir(p: VendoredPackage): string {
  return path.join('ytt', 'vendir', p.vendirFolder, '_ytt_lib', 'addons', 'packages', p.name, p.version, 'bundle', 'config');
}

/**
 * A TCE-layout package (`<repo>/addons/packages/<name>/{metadata.yaml,<version>/{package.yaml,bundle/config}}`)
 * whose bundle/config is the tree's vendored copy plus one edit: an overlay file that annotates
 * `p.edit` (a developer's change to the package config). Returns the version folder.
 */
export async function vendoredPackage(repo: string, p: VendoredPackage): Promise<string> {
  const pkgDir = path.join(repo, 'addons', 'packages', p.name);
  const folder = path.join(pkgDir, p.version);
  await mkdir(path.join(folder, 'bundle', '.imgpkg'), { recursive: true });
  await cp(path.join(TKG_PROVIDERS, vendoredDir(p)), path.join(folder, 'bundle', 'config'), { recursive: true });
  await makeWritable(path.join(folder, 'bundle', 'config'));
  await writeFile(path.join(folder, 'bundle', '.imgpkg', 'images.yml'), 'apiVersion: imgpkg.carvel.dev/v1alpha1\nkind: ImagesLock\nimages: []\n');
  await writeFile(
    // Last in ytt's file order, after the package's own overlays (antrea's expects to add the annotations map itself).
    path.join(folder, 'bundle', 'config', 'zz-devpkg-edit.yaml'),
    [
      '#@ load("@ytt:overlay", "overlay")',
      `#@overlay/match by=overlay.subset({"kind": "${p.edit.kind}", "metadata": {"name": "${p.edit.name}"}})`,
      '---',
      'metadata:',
      '  #@overlay/match missing_ok=True',
      '  annotations:',
      '    #@overlay/match missing_ok=True',
      `    ${EDIT_ANNOTATION}: "yes"`,
      '',
    ].join('\n'),
  );
  if (p.example) {
    const example = path.join(repoRoot, 'examples', 'tce-packages', 'addons', 'packages', p.name);
    await cp(path.join(example, 'metadata.yaml'), path.join(pkgDir, 'metadata.yaml'));
    await cp(path.join(example, p.version, 'package.yaml'), path.join(folder, 'package.yaml'));
    return folder;
  }
  const refName = `${p.name}.community.tanzu.vmware.com`;
  await writeFile(path.join(pkgDir, 'metadata.yaml'), stringify({ apiVersion: 'data.packaging.carvel.dev/v1alpha1', kind: 'PackageMetadata', metadata: { name: refName }, spec: { displayName: p.name } }));
  await writeFile(
    path.join(folder, 'package.yaml'),
    stringify({
      apiVersion: 'data.packaging.carvel.dev/v1alpha1',
      kind: 'Package',
      metadata: { name: `${refName}.${p.version}` },
      spec: {
        refName,
        version: p.version,
        template: {
          spec: {
            fetch: [{ imgpkgBundle: { image: `projects.registry.vmware.com/tce/${p.name}@sha256:${'0'.repeat(64)}` } }],
            template: [{ ytt: { paths: ['config/'] } }, { kbld: { paths: ['-', '.imgpkg/images.yml'] } }],
            deploy: [{ kapp: {} }],
          },
        },
      },
    }),
  );
  return folder;
}

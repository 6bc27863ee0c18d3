// The stand-in TKG 1.6 controllers in the harness (test/standin/tkg-controllers, started by
// test/harness/tkg.sh): what the stand-in tanzu CLI needs to leave a management cluster the way the
// real CLI does, and the controllers' processes and logs.
import { chmod, cp, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { renderProviders } from '../../../src/providers/render.js';
import { carriedDocs, parseDocs, type Doc } from '../../../src/providers/validate.js';
import { Ytt } from '../../../src/tools/ytt.js';
import { PROVIDERS_FIXTURE, type Workspace } from './bootstrap.js';
import { runTool, tempFolder } from './run.js';
import { copyProviders, TKG_PROVIDERS, VENDORED, vendoredDir, vendoredPackage } from './tkg-providers.js';

/**
 * Renders the real providers tree (../shared/fixtures/tkg-providers-v0.25.4) for a docker management
 * cluster with antrea, the way `tanzu management-cluster create` does (src/providers/render.ts), and
 * writes to `<dir>/mgmt-objects.yaml` what the stand-in puts in the management cluster: the addon
 * Secrets, and what the `<cluster>-tkr` ClusterResourceSet's Secret carries (tkr-system's
 * tkr-controller-config ConfigMap, the tkr-controller-manager Deployment). Returns the file.
 */
export async function renderMgmtObjects(dir: string, clusterName: string): Promise<string> {
  const tanzuDir = path.join(dir, 'real-providers', '.config', 'tanzu');
  const providersDir = path.join(tanzuDir, 'tkg', 'providers');
  await copyProviders(providersDir);
  const clusterConfig = path.join(dir, 'real-providers', 'mgmt.yaml');
  await mkdir(path.dirname(clusterConfig), { recursive: true });
  await writeFile(clusterConfig, `CLUSTER_NAME: ${clusterName}\nCLUSTER_PLAN: dev\nINFRASTRUCTURE_PROVIDER: docker\nCNI: antrea\n`);
  const docs = parseDocs((await renderProviders({ ytt: new Ytt('ytt'), providersDir, clusterConfig })).text);
  const addonSecrets = docs.filter((d) => d.kind === 'Secret' && d.type === 'tkg.tanzu.vmware.com/addon');
  const tkrSecret = docs.find((d) => d.kind === 'Secret' && d.metadata?.name === `${clusterName}-tkr`);
  if (!tkrSecret) throw new Error(`the real providers render has no Secret ${clusterName}-tkr (the tkr ClusterResourceSet's)`);
  const tkr = carriedDocs(tkrSecret).filter((d: Doc) => (d.kind === 'ConfigMap' && d.metadata?.name === 'tkr-controller-config') || (d.kind === 'Deployment' && d.metadata?.name === 'tkr-controller-manager'));
  const file = path.join(dir, 'mgmt-objects.yaml');
  await writeFile(file, [...addonSecrets, ...tkr].map((d) => `---\n${stringify(d)}`).join(''));
  return file;
}

/** tkg.sh, with the harness environment. */
export const tkgScript = (): string => {
  const s = process.env.DEVPKG_TKG_HARNESS;
  if (!s) throw new Error('DEVPKG_TKG_HARNESS is not set: these tests need the harness with the stand-in TKG controllers (controlplane.sh up --tkg; the integration tier does it)');
  return s;
};

/** The running stand-in controllers, name -> pid (tkg.sh pids). */
export async function tkgPids(): Promise<Record<string, number>> {
  const { stdout } = await runTool('bash', [tkgScript(), 'pids']);
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [name, pid] = l.split(' ');
        return [name!, Number(pid)];
      }),
  );
}

/** The controller's own log, as the harness keeps it. */
export async function controllerLog(name: string): Promise<string> {
  return readFile(path.join(process.env.DEVPKG_HARNESS_DIR ?? '', 'logs', `${name}.log`), 'utf8');
}

/**
 * The package under test and the stand-in's providers for a TKG 1.x bootstrap. The addons
 * manager hands the PackageInstall the data values of the real providers' addon Secret (TKG's
 * antrea values; seen with the real v0.25.4 manager, played so by the stand-in), which the TCE
 * example antrea package's schema rejects ("Given data value is not declared in schema"): on TKG 1.6 the package to edit is TKG's
 * own antrea config, which the real providers tree vendors. So the workspace's package is that
 * config plus an edit (tkg-providers.ts vendoredPackage), and the stand-in's providers
 * (test/fixtures/providers, the only layout its ytt render knows) vendor the same config, with
 * the fixture's CNI data values reduced to what that config declares.
 */
export async function tkgWorkspace(prefix: string, clusterName = 'devpkg-it-mgmt'): Promise<Workspace & { standinProviders: string }> {
  return tempFolder(prefix, async (dir) => {
    const folder = await vendoredPackage(path.join(dir, 'repo'), antrea);
    // A package bundle locks its images (kbld resolves through .imgpkg/images.yml, no network):
    // TKG's config names antrea/antrea-ubuntu:v1.5.3; lock it to a small image in the test registry.
    const registry = process.env.DEVPKG_TEST_REGISTRY;
    if (!registry) throw new Error('DEVPKG_TEST_REGISTRY is not set (the harness exports it)');
    await writeFile(path.join(dir, 'image-content.txt'), 'stands for the antrea image; no node runs it here\n');
    await runTool('imgpkg', ['push', '-i', `${registry}/devpkg-it/antrea-ubuntu:v1.5.3`, '-f', path.join(dir, 'image-content.txt')]);
    const head = await fetch(`http://${registry}/v2/devpkg-it/antrea-ubuntu/manifests/v1.5.3`, {
      method: 'HEAD',
      headers: { accept: 'application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json' },
    });
    const digest = head.headers.get('docker-content-digest');
    if (!head.ok || !digest) throw new Error(`the registry gave no digest for ${registry}/devpkg-it/antrea-ubuntu:v1.5.3 (${head.status})`);
    const locked = `${registry}/devpkg-it/antrea-ubuntu@${digest}`;
    // TKG's config deploys an antrea-controller Deployment, whose pod no node runs here: kapp's
    // deploy must not wait for it (the TCE example's trimmed config has only the DaemonSet).
    const pkgFile = path.join(folder, 'package.yaml');
    const pkg = parse(await readFile(pkgFile, 'utf8')) as { spec: { template: { spec: { deploy: { kapp: Record<string, unknown> }[] } } } };
    pkg.spec.template.spec.deploy = [{ kapp: { rawOptions: ['--wait=false'] } }];
    await writeFile(pkgFile, stringify(pkg));
    await writeFile(
      path.join(folder, 'bundle', '.imgpkg', 'images.yml'),
      stringify({ apiVersion: 'imgpkg.carvel.dev/v1alpha1', kind: 'ImagesLock', images: [{ image: locked, annotations: { 'kbld.carvel.dev/id': 'antrea/antrea-ubuntu:v1.5.3' } }] }),
    );
    const standinProviders = path.join(dir, 'standin-providers');
    await cp(PROVIDERS_FIXTURE, standinProviders, { recursive: true });
    const lib = path.join(standinProviders, 'ytt', 'vendir', 'cni', '_ytt_lib', 'addons', 'packages', 'antrea', '1.5.2', 'bundle', 'config');
    await rm(lib, { recursive: true, force: true });
    await cp(path.join(TKG_PROVIDERS, vendoredDir(antrea)), lib, { recursive: true });
    await chmodTree(standinProviders);
    await writeFile(
      path.join(standinProviders, 'ytt', '02_addons', 'cni', 'antrea', 'antrea_addon_data.lib.yaml'),
      ['#@ load("@ytt:data", "data")', '', '#! The data values the CNI addon gives the vendored (TKG) antrea library.', '#@ def antrea_data_values():', 'infraProvider: #@ data.values.PROVIDER_TYPE', 'antrea:', '  config:', '    trafficEncapMode: #@ data.values.ANTREA_TRAFFIC_ENCAP_MODE', '#@ end', ''].join('\n'),
    );
    const home = path.join(dir, 'home');
    const tanzuDir = path.join(home, '.config', 'tanzu');
    const clusterConfig = path.join(dir, 'mgmt.yaml');
    await writeFile(clusterConfig, `CLUSTER_NAME: ${clusterName}\nCLUSTER_PLAN: dev\nINFRASTRUCTURE_PROVIDER: docker\nCNI: antrea\n`);
    return { dir, folder, home, tanzuDir, providersDir: path.join(tanzuDir, 'tkg', 'providers'), clusterConfig, clusterName, standinProviders };
  });
}

const antrea = VENDORED.find((p) => p.name === 'antrea')!;

async function chmodTree(p: string): Promise<void> {
  const s = await stat(p);
  await chmod(p, s.mode | 0o200);
  if (s.isDirectory()) for (const e of await readdir(p)) await chmodTree(path.join(p, e));
}

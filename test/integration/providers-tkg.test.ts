/**
 * Bootstrap mode's providers customisation on the real providers tree of tanzu-framework v0.25.4
 * (the release behind TCE v0.12; ../shared/fixtures/tkg-providers-v0.25.4/providers, copied to a
 * temp folder, never into the repository), for each library it vendors: antrea and calico (cni),
 * kapp-controller and vsphere-cpi. Each package is made in the test, in the TCE layout, from the
 * vendored bundle/config plus one edit (an annotation on its DaemonSet or Deployment).
 *
 * `devpkg bootstrap --prepare-only` runs with no tanzu CLI at hand, so its dry-run check renders
 * the providers with the real ytt the way `tanzu management-cluster create -i docker --dry-run`
 * does (src/providers/render.ts: the docker dev plan's template definition, config_default.yaml,
 * the cluster config, the BOM values). The tests show, on that render and on ytt renders for
 * TKG_CLUSTER_ROLE management and workload:
 * - our ClusterResourceSet and Secret carry the dev Package for the core refName
 *   (<name>.tanzu.vmware.com) in tkg-system;
 * - the providers' own ClusterResourceSet for the package carries the edited manifests (phase 1);
 *   vsphere-cpi has none on docker, and the check says that phase 1 does not apply there (a
 *   render for vSphere shows its CRS carrying the edit);
 * - 09_miscellaneous/09_filter.yaml (FILTER_BY_ADDON_TYPE, the upgrade filter) keeps our documents;
 *   for workload clusters our file renders nothing (management clusters only, by design), and
 *   without that guard the filter keeps them for workload too;
 * - `devpkg bootstrap --cleanup` leaves the tree byte-identical (sha256 and mode of every file,
 *   mode of every folder), also a developer's own customisation that devpkg overwrote;
 * - a render that does not use the vendored copy devpkg replaced fails the check, and so does the
 *   example antrea 1.5.3 config (examples/tce-packages, devpkg's own with a trimmed values
 *   schema): the providers evaluate it with data values (antrea.config.egress, ...) it does not declare.
 */
import { existsSync } from 'node:fs';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deriveDevPackage } from '../../src/packages/derive.js';
import { loadPackage } from '../support/load-package.js';
import { ADDON_TYPE_ANNOTATION, renderOverlay } from '../../src/packages/overlay.js';
import { renderProviders, type ClusterRole } from '../../src/providers/render.js';
import { carriedDocs, parseDocs, type Doc } from '../../src/providers/validate.js';
import { Ytt } from '../../src/tools/ytt.js';
import { devpkg } from './helpers/bootstrap.js';
import { repoRoot, tempFolder } from './helpers/run.js';
import { copyProviders, EDIT_ANNOTATION, snapshot, VENDORED, vendoredDir, vendoredPackage, type VendoredPackage } from './helpers/tkg-providers.js';

const CLUSTER = 'devpkg-it-tkg';
const DEV = '-dev.4';
// Per-test timeouts are explicit: jest reads testTimeout only from the global config.
const T = 120_000;
const ytt = new Ytt('ytt');
// The vSphere settings the vsphere dev plan needs to render (none of them is contacted).
const VSPHERE_CONFIG = [
  'CLUSTER_PLAN: dev', 'INFRASTRUCTURE_PROVIDER: vsphere', 'VSPHERE_SERVER: vcenter.example.com', 'VSPHERE_USERNAME: user', 'VSPHERE_PASSWORD: pass',
  'VSPHERE_DATACENTER: /dc0', 'VSPHERE_NETWORK: net0', 'VSPHERE_RESOURCE_POOL: /dc0/host/cluster0/Resources', 'VSPHERE_DATASTORE: /dc0/datastore/ds0',
  'VSPHERE_FOLDER: /dc0/vm', 'VSPHERE_SSH_AUTHORIZED_KEY: "ssh-rsa AAAA devpkg"', 'VSPHERE_CONTROL_PLANE_ENDPOINT: 10.0.0.10', 'VSPHERE_INSECURE: true',
  'VSPHERE_TEMPLATE: /dc0/vm/photon-3-kube-v1.23.8', '',
].join('\n');

interface Ws {
  dir: string;
  folder: string;
  tanzuDir: string;
  providersDir: string;
  clusterConfig: string;
  work: string;
}

async function workspace(p: VendoredPackage): Promise<Ws> {
  return tempFolder(`devpkg-tkg-${p.name}-`, async (dir) => {
    const tanzuDir = path.join(dir, 'home', '.config', 'tanzu');
    const providersDir = path.join(tanzuDir, 'tkg', 'providers');
    await copyProviders(providersDir);
    const folder = await vendoredPackage(path.join(dir, 'repo'), p);
    const clusterConfig = path.join(dir, 'mgmt.yaml');
    await writeFile(clusterConfig, `CLUSTER_NAME: ${CLUSTER}\nCLUSTER_PLAN: dev\nINFRASTRUCTURE_PROVIDER: docker\nCNI: ${p.name === 'calico' ? 'calico' : 'antrea'}\n`);
    return { dir, folder, tanzuDir, providersDir, clusterConfig, work: path.join(dir, 'work') };
  });
}

/** PATH without any tanzu CLI, so that the check renders with ytt even where a developer has one. */
const NO_TANZU_ENV = { ...process.env, PATH: (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !existsSync(path.join(d, 'tanzu'))).join(path.delimiter) };

/** `devpkg bootstrap --prepare-only` for a package of the tree, with no tanzu CLI at hand. */
function prepare(ws: Ws, p: VendoredPackage, devVersion: string, image = `127.0.0.1:5000/devpkg-it/${p.name}@sha256:${'c'.repeat(64)}`, folder = ws.folder) {
  return devpkg([
    'bootstrap', '--package', folder, '--image', image, '--ref-name', `${p.name}.tanzu.vmware.com`, '--addon-type', p.addonType,
    '--tanzu-dir', ws.tanzuDir, '--cluster-config', ws.clusterConfig, '--dev-version', devVersion, '--prepare-only', '--work-dir', ws.work,
  ], NO_TANZU_ENV);
}

const named = (docs: Doc[], kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata?.name === name);
const annotated = (d: Doc, addonType: string) => d.metadata?.annotations?.[ADDON_TYPE_ANNOTATION] === addonType;

/** The providers' own ClusterResourceSets of the addon type, and the objects their Secrets carry. */
function providersCrs(docs: Doc[], p: VendoredPackage): { crs: Doc[]; carried: Doc[] } {
  const crs = docs.filter((d) => d.kind === 'ClusterResourceSet' && annotated(d, p.addonType) && !String(d.metadata?.name).endsWith('-dev-package'));
  const carried = crs.flatMap((c) => (c.spec?.resources ?? []).flatMap((r: Doc) => carriedDocs(named(docs, r.kind, r.name) ?? {})));
  return { crs, carried };
}

async function render(ws: Ws, role: ClusterRole, values: Record<string, string> = {}): Promise<Doc[]> {
  return parseDocs((await renderProviders({ ytt, providersDir: ws.providersDir, clusterConfig: ws.clusterConfig, role, values })).text);
}

describe.each(VENDORED)('$name $version ($addonType)', (p) => {
  let ws: Ws;
  const refName = `${p.name}.tanzu.vmware.com`;
  const image = `127.0.0.1:5000/devpkg-it/${p.name}@sha256:${'c'.repeat(64)}`;
  const devVersion = `${p.version.replace(/\d+$/, (n) => String(Number(n) + 1))}${DEV}`;
  const ours = `${CLUSTER}-${p.name}-dev-package`;

  beforeAll(async () => {
    ws = await workspace(p);
  }, T);
  afterAll(async () => {
    if (ws) await rm(ws.dir, { recursive: true, force: true });
  });

  test('prepare-only checks a real ytt render; management and workload renders; cleanup restores the tree byte for byte', async () => {
    const before = await snapshot(ws.providersDir);
    // PATH has ytt (the harness's) and no tanzu: the dry-run check renders with ytt.
    const r = await prepare(ws, p, devVersion, image);
    if (r.code !== 0) console.log(r.stderr.slice(-4000));
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no tanzu CLI on PATH \(and no --tanzu\): the dry-run check renders the providers with ytt/);
    expect(r.stderr).toContain("dry-run: rendered with ytt as tanzu management-cluster create --dry-run renders (devpkg's render-only BOM");
    expect(r.stdout).toContain(`phase 1: replaced the vendored ${p.name} ${p.version} in ${vendoredDir(p)}`);
    expect(r.stdout).toContain(`dry-run check: ok (ClusterResourceSet tkg-system/${ours}, Secret tkg-system/${ours};`);

    // The render inside bootstrap is renderProviders for a management cluster.
    const dryRun = await readFile(path.join(ws.work, 'dry-run.yaml'), 'utf8');
    expect((await renderProviders({ ytt, providersDir: ws.providersDir, clusterConfig: ws.clusterConfig })).text).toBe(dryRun);
    const mgmt = parseDocs(dryRun);
    expect(named(mgmt, 'Cluster', CLUSTER)?.metadata?.labels).toMatchObject({ 'cluster-role.tkg.tanzu.vmware.com/management': '' });

    // Phases 2 and 3: our CRS and Secret with the dev Package for the core refName.
    const crs = named(mgmt, 'ClusterResourceSet', ours);
    const secret = named(mgmt, 'Secret', ours);
    expect(crs?.metadata).toMatchObject({ namespace: 'tkg-system', annotations: { [ADDON_TYPE_ANNOTATION]: p.addonType } });
    expect(crs?.spec?.resources).toEqual([{ name: ours, kind: 'Secret' }]);
    expect(secret?.type).toBe('addons.cluster.x-k8s.io/resource-set');
    const [pkg, ...rest] = carriedDocs(secret!);
    expect(rest).toEqual([]);
    expect(pkg).toMatchObject({
      kind: 'Package',
      metadata: { name: `${refName}.${devVersion}`, namespace: 'tkg-system' },
      spec: { refName, version: devVersion, template: { spec: { fetch: [{ imgpkgBundle: { image } }] } } },
    });

    // Phase 1: the providers' own CRS for the package carries the edited manifests.
    const own = providersCrs(mgmt, p);
    if (p.name === 'vsphere-cpi') {
      // The providers install the vSphere CPI that way only on vSphere (02_addons/cpi/cpi_secret_crs.yaml).
      expect(own.crs).toEqual([]);
      expect(r.stderr).toMatch(/dry-run: phase 1 does not apply to this cluster: the render has no ClusterResourceSet of cloud-provider\/vsphere-cpi/);
      // On vSphere it does, and carries the edit.
      const vsphereConfig = path.join(ws.dir, 'vsphere.yaml');
      await writeFile(vsphereConfig, `CLUSTER_NAME: ${CLUSTER}\n${VSPHERE_CONFIG}`);
      const onVsphere = parseDocs((await renderProviders({ ytt, providersDir: ws.providersDir, clusterConfig: vsphereConfig, infrastructure: 'vsphere' })).text);
      const cpi = providersCrs(onVsphere, p);
      expect(cpi.crs.map((c) => c.metadata.name)).toEqual([`${CLUSTER}-vsphere-cpi`]);
      expect(named(cpi.carried, p.edit.kind, p.edit.name)?.metadata?.annotations?.[EDIT_ANNOTATION]).toBe('yes');
    } else {
      expect(r.stderr).toContain('dry-run: all 1 edited value(s) are in the rendered manifests');
      expect(own.crs.map((c) => c.metadata.name)).toEqual([`${CLUSTER}-${p.name}`]);
      expect(named(own.carried, p.edit.kind, p.edit.name)?.metadata?.annotations?.[EDIT_ANNOTATION]).toBe('yes');
    }

    // The upgrade filter (09_miscellaneous/09_filter.yaml) keeps what carries the addon type: ours too.
    const filtered = await render(ws, 'management', { FILTER_BY_ADDON_TYPE: p.addonType });
    expect(filtered.every((d) => annotated(d, p.addonType))).toBe(true);
    expect(named(filtered, 'ClusterResourceSet', ours)).toEqual(crs);
    expect(named(filtered, 'Secret', ours)).toEqual(secret);

    // Workload clusters made later from this folder keep the release: our file renders nothing there.
    for (const values of [{}, { FILTER_BY_ADDON_TYPE: p.addonType }] as Record<string, string>[]) {
      const workload = await render(ws, 'workload', values);
      expect(named(workload, 'Cluster', CLUSTER)?.metadata?.labels?.['cluster-role.tkg.tanzu.vmware.com/management']).toBeUndefined();
      expect(workload.filter((d) => String(d.metadata?.name).endsWith('-dev-package'))).toEqual([]);
    }
    // Without that guard, the filter keeps our documents for workload clusters as well.
    const loaded = await loadPackage(path.dirname(path.dirname(ws.folder)), '', p.name, p.version);
    const { pkg: dev } = deriveDevPackage(loaded.pkg, { version: devVersion, image, namespace: 'tkg-system', refName });
    const overlayFile = path.join(ws.providersDir, 'ytt', '04_user_customizations', `${p.name}_dev_package.yaml`);
    await writeFile(overlayFile, renderOverlay(dev, { name: p.name, addonType: p.addonType, managementOnly: false }));
    const workload = await render(ws, 'workload', { FILTER_BY_ADDON_TYPE: p.addonType });
    expect(named(workload, 'ClusterResourceSet', ours)).toEqual(crs);
    expect(named(workload, 'Secret', ours)).toEqual(secret);

    const c = await devpkg(['bootstrap', '--cleanup', '--tanzu-dir', ws.tanzuDir]);
    expect(c.code).toBe(0);
    expect(await snapshot(ws.providersDir)).toEqual(before);
  }, T);
});

/** An antrea workspace: `setup`, then `body`; `devpkg bootstrap --cleanup` must then give back the tree as `setup` left it. */
async function restoredAfter(setup: (ws: Ws) => Promise<void>, body: (ws: Ws, p: VendoredPackage) => Promise<void>): Promise<void> {
  const p = VENDORED[0]!;
  const ws = await workspace(p);
  try {
    await setup(ws);
    const before = await snapshot(ws.providersDir);
    await body(ws, p);
    expect((await devpkg(['bootstrap', '--cleanup', '--tanzu-dir', ws.tanzuDir])).code).toBe(0);
    expect(await snapshot(ws.providersDir)).toEqual(before);
  } finally {
    await rm(ws.dir, { recursive: true, force: true });
  }
}

test('the check fails when the render does not use the vendored copy devpkg replaced', async () => {
  await restoredAfter(
    async (ws) => {
      // The CNI addon loads its library from a second copy that devpkg does not touch.
      const vendir = path.join(ws.providersDir, 'ytt', 'vendir');
      await cp(path.join(vendir, 'cni'), path.join(vendir, 'cni-other'), { recursive: true });
      const addon = path.join(ws.providersDir, 'ytt', '02_addons', 'cni', 'add_cni.yaml');
      await writeFile(addon, (await readFile(addon, 'utf8')).replaceAll('/vendir/cni/cni.lib.yaml', '/vendir/cni-other/cni.lib.yaml'));
    },
    async (ws, p) => {
      const r = await prepare(ws, p, '1.5.4-dev.5');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/ytt as tanzu management-cluster create --dry-run renders .* does not render what devpkg prepared/);
      expect(r.stderr).toMatch(new RegExp(`do not hold the edit \\(DaemonSet/kube-system/antrea-agent metadata.annotations.${EDIT_ANNOTATION.replace(/[./]/g, '\\$&')}\\)`));
    },
  );
}, T);

test("a developer's providers folder is never lost: own customisations come back, a second run refuses to stack", async () => {
  let mine = '';
  await restoredAfter(
    async (ws) => {
      mine = path.join(ws.providersDir, 'ytt', '04_user_customizations');
      await writeFile(path.join(mine, 'antrea_dev_package.yaml'), '#! my own earlier attempt\n');
      await writeFile(path.join(mine, 'registry.yaml'), '#! unrelated customisation\n');
    },
    async (ws, p) => {
      expect((await prepare(ws, p, '1.5.4-dev.6')).code).toBe(0);
      expect(await readFile(path.join(mine, 'antrea_dev_package.yaml'), 'utf8')).toMatch(/devpkg: dev Package antrea.tanzu.vmware.com.1.5.4-dev.6/);
      expect(await readFile(path.join(mine, 'registry.yaml'), 'utf8')).toBe('#! unrelated customisation\n');
      const again = await prepare(ws, p, '1.5.4-dev.7');
      expect(again.code).toBe(2);
      expect(again.stderr).toMatch(/run devpkg bootstrap --cleanup first/);
    },
  );
}, T);

test("the example antrea 1.5.3 (examples/tce-packages, a trimmed values schema) does not take the data values TKG 1.6's providers give it: the check says so", async () => {
  await restoredAfter(
    async () => undefined,
    async (ws, p) => {
      const tce = path.join(ws.dir, 'tce', 'addons', 'packages', 'antrea');
      await cp(path.join(repoRoot, 'examples', 'tce-packages', 'addons', 'packages', 'antrea'), tce, { recursive: true });
      const r = await prepare(ws, p, '1.5.4-dev.8', undefined, path.join(tce, '1.5.3'));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Evaluating library 'addons\/packages\/antrea\/1.5.3\/bundle\/config': Overlaying data values/);
      expect(r.stderr).toMatch(/the render fails inside the library devpkg replaced .* the edited config does not declare all of them/);
    },
  );
}, T);

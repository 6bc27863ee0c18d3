/**
 * The providers customisation against the real ytt, with the stand-in tanzu CLI for
 * `management-cluster create --dry-run` (it renders the providers folder with ytt):
 * - an empty providers folder is populated, phase 1 replaces the vendored antrea library
 *   (1.5.2 in the fixture) with the edited 1.5.3 bundle/config, phases 2/3 get the
 *   04_user_customizations file; ytt renders our CRS + Secret (with the dev Package) and the CNI
 *   Secret with the edit; the dry-run check passes; --prepare-only prints the create command;
 * - `devpkg bootstrap --cleanup` restores the folder byte for byte;
 * - a render that lacks the edit (the library loaded from another path) fails the check, and a run
 *   that created nothing restores the folder itself.
 * These need the stand-in CLI (to populate, and to create). The same customisation on the real
 * tanzu-framework providers tree, with no CLI, is in providers-tkg.test.ts (also a developer's own
 * customisation that devpkg overwrote coming back).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { listFiles } from '../../src/providers/files.js';
import { carried, devpkg, EDIT_LABEL, parseYaml, PROVIDERS_FIXTURE, renderProviders, STANDIN, workspace, type Workspace } from './helpers/bootstrap.js';

const IMAGE = `127.0.0.1:5000/devpkg-it/antrea@sha256:${'e'.repeat(64)}`;
let ws: Workspace;
// Per-test timeouts are explicit: jest reads testTimeout only from the global config.
const T = 60_000;

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(dir)) out[f] = await readFile(path.join(dir, f), 'utf8');
  return out;
}

const prepareArgs = () => [
  'bootstrap', '--package', ws.folder, '--image', IMAGE, '--ref-name', 'antrea.tanzu.vmware.com', '--addon-type', 'cni/antrea',
  '--tanzu-dir', ws.tanzuDir, '--cluster-config', ws.clusterConfig, '--tanzu', STANDIN, '--dev-version', '1.5.4-dev.7', '--prepare-only',
  '--work-dir', path.join(ws.dir, 'work'),
];

beforeEach(async () => {
  ws = await workspace('devpkg-providers-it-');
});
afterEach(async () => {
  await rm(ws.dir, { recursive: true, force: true });
}, T);

test('prepare-only: populate, sync the vendored library, write the overlay; ytt renders CRS, Secret and the edited CNI manifests; cleanup restores', async () => {
  const r = await devpkg(prepareArgs());
  expect(r.stderr).not.toMatch(/^devpkg bootstrap:/m);
  expect(r.code).toBe(0);
  const overlay = path.join(ws.providersDir, 'ytt', '04_user_customizations', 'antrea_dev_package.yaml');
  const lib = path.join(ws.providersDir, 'ytt/vendir/cni/_ytt_lib/addons/packages/antrea/1.5.2/bundle/config');
  expect(r.stderr).toMatch(/is empty: populating it/);
  expect(r.stdout).toContain(`phase 1: replaced the vendored antrea 1.5.2 in ytt/vendir/cni/_ytt_lib/addons/packages/antrea/1.5.2/bundle/config (library.get in ytt/vendir/cni/cni.lib.yaml:4) with the edited 1.5.3 bundle/config: 1 changed, 0 added, 0 removed`);
  expect(r.stdout).toContain(overlay);
  expect(r.stdout).toContain(`dry-run check: ok (ClusterResourceSet tkg-system/${ws.clusterName}-antrea-dev-package, Secret tkg-system/${ws.clusterName}-antrea-dev-package; carried: ServiceAccount/antrea-agent, ConfigMap/antrea-config, DaemonSet/antrea-agent)`);
  expect(r.stdout).toContain(`HOME=${ws.home} SUPPRESS_PROVIDERS_UPDATE=1 ${STANDIN} management-cluster create -i docker --file ${ws.clusterConfig} --yes`);
  expect(await tree(lib)).toEqual(await tree(path.join(ws.folder, 'bundle', 'config')));

  // Render as the tanzu CLI would, with the real ytt.
  const docs = await renderProviders(ws.providersDir, { CLUSTER_NAME: ws.clusterName });
  const byName = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata?.name === name);
  const crs = byName('ClusterResourceSet', `${ws.clusterName}-antrea-dev-package`);
  const secret = byName('Secret', `${ws.clusterName}-antrea-dev-package`);
  expect(crs?.spec?.resources).toEqual([{ name: `${ws.clusterName}-antrea-dev-package`, kind: 'Secret' }]);
  expect(crs?.metadata?.annotations).toEqual({ 'tkg.tanzu.vmware.com/addon-type': 'cni/antrea' });
  expect(secret?.type).toBe('addons.cluster.x-k8s.io/resource-set');
  const pkg = parseYaml(secret!.stringData.value);
  expect(pkg.metadata).toMatchObject({ name: 'antrea.tanzu.vmware.com.1.5.4-dev.7', namespace: 'tkg-system' });
  expect(pkg.spec.template.spec.fetch[0].imgpkgBundle.image).toBe(IMAGE);
  const cni = carried(byName('Secret', `${ws.clusterName}-cni-antrea`)!);
  const ds = cni.find((d) => d.kind === 'DaemonSet');
  expect(ds?.metadata?.labels).toEqual({ app: 'antrea', component: 'antrea-agent', [EDIT_LABEL]: 'yes' });
  // The upgrade filter keeps only the addon's documents: ours is annotated, so it stays.
  const filtered = await renderProviders(ws.providersDir, { CLUSTER_NAME: ws.clusterName, FILTER_BY_ADDON_TYPE: 'cni/antrea' });
  expect(filtered.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual(
    [`ClusterResourceSet/${ws.clusterName}-antrea-dev-package`, `ClusterResourceSet/${ws.clusterName}-cni-antrea`, `Secret/${ws.clusterName}-antrea-dev-package`, `Secret/${ws.clusterName}-cni-antrea`].sort(),
  );

  const c = await devpkg(['bootstrap', '--cleanup', '--tanzu-dir', ws.tanzuDir, '--tanzu', STANDIN]);
  expect(c.code).toBe(0);
  // Back to exactly what the tanzu CLI populated.
  expect(await tree(ws.providersDir)).toEqual(await tree(PROVIDERS_FIXTURE));
}, T);

test('the dry-run check fails when the render does not use the vendored copy devpkg replaced', async () => {
  await mkdir(path.dirname(ws.providersDir), { recursive: true });
  await (await import('node:fs/promises')).cp(PROVIDERS_FIXTURE, ws.providersDir, { recursive: true });
  // The addon loads its manifests from a second copy that devpkg does not know about.
  const addon = path.join(ws.providersDir, 'ytt/02_addons/cni/add_cni.yaml');
  await (await import('node:fs/promises')).cp(path.join(ws.providersDir, 'ytt/vendir/cni'), path.join(ws.providersDir, 'ytt/vendir/cni-other'), { recursive: true });
  await (await import('node:fs/promises')).rename(path.join(ws.providersDir, 'ytt/vendir/cni-other/cni.lib.yaml'), path.join(ws.providersDir, 'ytt/vendir/cni-other/other.star.lib.yaml'));
  await writeFile(addon, (await readFile(addon, 'utf8')).replace('/vendir/cni/cni.lib.yaml', '/vendir/cni-other/other.star.lib.yaml'));
  const before = await tree(ws.providersDir);

  // No docker here: the stand-in plays the CLI, so the host check is skipped (src/bootstrap/host.test.ts tests it).
  const r = await devpkg([...prepareArgs().filter((a) => a !== '--prepare-only'), '--skip-host-check']);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/does not render what devpkg prepared/);
  expect(r.stderr).toMatch(new RegExp(`do not hold the edit \\(DaemonSet/kube-system/antrea-agent metadata.labels.${EDIT_LABEL.replace(/[./]/g, '\\$&')}\\)`));
  // Nothing was created, so the run restored the folder itself.
  expect(await tree(ws.providersDir)).toEqual(before);
}, T);

// The stand-in TKG controllers' decisions (test/standin/tkg-controllers/reconcile.mjs), case by case
// against what the real tanzu-addons-manager and tkr-controller-manager v0.25.4 were seen to do
// (docs/addons-manager.md). Among them what an earlier stand-in got wrong, so that it cannot drift
// back: a BOM ConfigMap or a TKR is never overwritten; packageRef is replaced whole; annotations
// the manager does not set (packaging.carvel.dev/downgradable) are neither added nor removed.
import { gunzipSync, gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import {
  bomConfigMap, bomMetadataWrite, bomTagsToCreate, clustersForEvent, conditionUpdates, createOrPatch, mergePatch, newestMetadataTag, reconcileCluster, tkrNameOf, tkrToCreate,
  type TargetedWrite,
} from '../standin/tkg-controllers/reconcile.mjs';
import { firstFile, repositoryBase, tarOne } from '../standin/tkg-controllers/registry.mjs';

const TKR = 'v1.22.9---vmware.1-tkg.1';
const bom = (repoTag = 'v1.6.1_vmware.1-tkg.1', packageName = 'antrea.tanzu.vmware.com', version = 'v1.22.9+vmware.1-tkg.1') => ({
  apiVersion: 'run.tanzu.vmware.com/v2',
  release: { version },
  components: {
    kubernetes: [{ version: 'v1.22.9+vmware.1' }],
    'tkg-core-packages': [{ version: 'v1.22.9+vmware.1-tkg.1', images: { tanzuCorePackageRepositoryImage: { imagePath: 'packages/core/repo', tag: repoTag } } }],
  },
  imageConfig: { imageRepository: 'reg.example/tkg' },
  addons: { antrea: { category: 'cni', clusterTypes: ['management', 'workload'], packageName } },
});
const bomCm = (b = bom(), tag = 'v1.22.9_vmware.1-tkg.1') => bomConfigMap(stringify(b), tag);
const cluster = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'mgmt', namespace: 'tkg-system', uid: 'u-1', labels: { tanzuKubernetesRelease: TKR } } };
const addonSecret = {
  apiVersion: 'v1', kind: 'Secret', type: 'tkg.tanzu.vmware.com/addon',
  metadata: { name: 'mgmt-antrea-addon', namespace: 'tkg-system', labels: { 'tkg.tanzu.vmware.com/addon-name': 'antrea', 'tkg.tanzu.vmware.com/cluster-name': 'mgmt' } },
  data: { 'values.yaml': Buffer.from('infraProvider: docker\n').toString('base64') },
};
const tkr = { apiVersion: 'run.tanzu.vmware.com/v1alpha1', kind: 'TanzuKubernetesRelease', metadata: { name: TKR } };

function view(live: Record<string, object> = {}, over: object = {}) {
  return { cluster, tkr, bomConfigMaps: [bomCm()], addonSecrets: [addonSecret], live, ...over };
}
const writeTo = (writes: TargetedWrite[], kind: string, name: string) => writes.find((w) => w.target.kind === kind && w.target.name === name);

describe('the addons manager (phase 2 and its re-patches)', () => {
  test('first reconcile: creates the tanzu-core repository from the BOM, the PackageInstall as the real one wrote it, and what it needs', () => {
    const r = reconcileCluster(view());
    expect(r.status).toBe('reconciled');
    // The repository first, for every reconcile.
    expect(r.writes[0]!.target).toEqual({ apiVersion: 'packaging.carvel.dev/v1alpha1', kind: 'PackageRepository', namespace: 'tkg-system', name: 'tanzu-core' });
    expect(r.writes[0]).toMatchObject({ op: 'create', body: { spec: { fetch: { imgpkgBundle: { image: 'reg.example/tkg/packages/core/repo:v1.6.1_vmware.1-tkg.1' } } } } });
    expect(writeTo(r.writes, 'PackageInstall', 'antrea')).toMatchObject({
      op: 'create',
      body: {
        metadata: {
          name: 'antrea', namespace: 'tkg-system',
          annotations: {
            'tkg.tanzu.vmware.com/addon-type': 'cni/antrea', 'tkg.tanzu.vmware.com/addon-name': 'mgmt-antrea-addon',
            'tkg.tanzu.vmware.com/addon-namespace': 'tkg-system', 'ext.packaging.carvel.dev/ytt-data-values-overlays': '',
          },
        },
        spec: { syncPeriod: '5m0s', serviceAccountName: 'tkg-addons-app-sa', packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } }, values: [{ secretRef: { name: 'antrea-data-values' } }] },
      },
    });
    expect(writeTo(r.writes, 'Secret', 'antrea-data-values')).toMatchObject({ op: 'create', body: { type: 'Opaque', data: addonSecret.data } });
    expect(writeTo(r.writes, 'ClusterRole', 'tkg-addons-app-cluster-role')).toMatchObject({ body: { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] } });
    expect(writeTo(r.writes, 'ClusterRoleBinding', 'tkg-addons-app-cluster-role-binding')).toMatchObject({ body: { subjects: [{ kind: 'ServiceAccount', name: 'tkg-addons-app-sa', namespace: 'tkg-system' }] } });
    // The addon Secret: a finalizer and an owner reference to the Cluster.
    expect(writeTo(r.writes, 'Secret', 'mgmt-antrea-addon')).toEqual(expect.objectContaining({
      op: 'patch',
      patch: { metadata: { finalizers: ['tkg.tanzu.vmware.com/addon'], ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: 'mgmt', uid: 'u-1' }] } },
    }));
  });

  test('re-patch of an edited PackageInstall: packageRef replaced whole (refName back, constraints gone); annotations added, none removed; downgradable neither added nor removed; labels and paused untouched', () => {
    const edited = {
      apiVersion: 'packaging.carvel.dev/v1alpha1', kind: 'PackageInstall',
      metadata: { name: 'antrea', namespace: 'tkg-system', labels: { mine: 'x' }, annotations: { 'packaging.carvel.dev/downgradable': '', 'someone/else': 'kept', 'tkg.tanzu.vmware.com/addon-type': 'cni/antrea', 'tkg.tanzu.vmware.com/addon-name': 'mgmt-antrea-addon', 'tkg.tanzu.vmware.com/addon-namespace': 'tkg-system', 'ext.packaging.carvel.dev/ytt-data-values-overlays': '' } },
      spec: {
        syncPeriod: '5m0s', serviceAccountName: 'tkg-addons-app-sa', paused: false,
        packageRef: { refName: 'antrea.community.tanzu.vmware.com', versionSelection: { constraints: '1.5.4-dev.11', prereleases: { identifiers: ['dev'] } } },
        values: [{ secretRef: { name: 'antrea-data-values' } }],
      },
    };
    const w = writeTo(reconcileCluster(view({ 'PackageInstall tkg-system/antrea': edited })).writes, 'PackageInstall', 'antrea');
    // Exactly the merge patch of what changed: the whole packageRef, nothing about annotations, labels or paused.
    expect(w).toEqual(expect.objectContaining({ op: 'patch', patch: { spec: { packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { constraints: null, prereleases: { identifiers: null } } } } } }));
    // Applied as a JSON merge patch, that is the BOM's packageRef and nothing else of the old one.
    const applied = structuredClone(edited);
    applied.spec.packageRef = { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } } as never;
    expect(mergePatch(edited, applied)).toEqual((w as { patch: object }).patch);

    // Without the annotation, the re-patch does not add it.
    const plain = structuredClone(edited);
    delete (plain.metadata.annotations as Record<string, string>)['packaging.carvel.dev/downgradable'];
    plain.spec.packageRef = { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } } as never;
    expect(writeTo(reconcileCluster(view({ 'PackageInstall tkg-system/antrea': plain })).writes, 'PackageInstall', 'antrea')).toBeUndefined();
  });

  test('a PackageInstall missing an annotation gets it added; the others stay', () => {
    const pi = { metadata: { name: 'antrea', namespace: 'tkg-system', annotations: { 'packaging.carvel.dev/downgradable': '' } }, spec: { syncPeriod: '5m0s', serviceAccountName: 'tkg-addons-app-sa', packageRef: { refName: 'antrea.tanzu.vmware.com', versionSelection: { prereleases: {} } }, values: [{ secretRef: { name: 'antrea-data-values' } }] } };
    const w = writeTo(reconcileCluster(view({ 'PackageInstall tkg-system/antrea': pi })).writes, 'PackageInstall', 'antrea');
    expect(w).toEqual(expect.objectContaining({ op: 'patch' }));
    const patch = (w as { patch: Record<string, { annotations: Record<string, string | null> }> }).patch;
    expect(Object.keys(patch)).toEqual(['metadata']);
    expect(Object.values(patch.metadata!.annotations)).not.toContain(null);
    expect(patch.metadata!.annotations['tkg.tanzu.vmware.com/addon-type']).toBe('cni/antrea');
  });

  test("the tanzu-core PackageRepository's spec is replaced whole; its annotations and labels stay; a new BOM's image is put in", () => {
    const repo = { metadata: { name: 'tanzu-core', namespace: 'tkg-system', annotations: { a: 'b' } }, spec: { syncPeriod: '1m', fetch: { imgpkgBundle: { image: 'reg.example/tkg/packages/core/repo:v1.6.1_vmware.1-tkg.1' }, git: { url: 'x' } } } };
    const w = writeTo(reconcileCluster(view({ 'PackageRepository tkg-system/tanzu-core': repo })).writes, 'PackageRepository', 'tanzu-core');
    expect(w).toEqual(expect.objectContaining({ op: 'patch', patch: { spec: { syncPeriod: null, fetch: { git: null } } } }));
    const upgraded = view({ 'PackageRepository tkg-system/tanzu-core': { ...repo, spec: { fetch: { imgpkgBundle: { image: 'reg.example/tkg/packages/core/repo:v1.6.1_vmware.1-tkg.1' } } } } }, {
      cluster: { ...cluster, metadata: { ...cluster.metadata, labels: { tanzuKubernetesRelease: 'v1.22.9---vmware.2-tkg.1' } } },
      bomConfigMaps: [bomCm(bom('v1.6.2_vmware.2-tkg.1', undefined, 'v1.22.9+vmware.2-tkg.1'), 'v1.22.9_vmware.2-tkg.1')],
    });
    expect(writeTo(reconcileCluster(upgraded).writes, 'PackageRepository', 'tanzu-core')).toEqual(expect.objectContaining({ patch: { spec: { fetch: { imgpkgBundle: { image: 'reg.example/tkg/packages/core/repo:v1.6.2_vmware.2-tkg.1' } } } } }));
    // tkr-controller-config's imageRepository, when set, wins over the BOM's.
    const own = reconcileCluster(view({}, { tkrControllerConfig: { data: { imageRepository: 'mirror.example/tkg' } } }));
    expect(own.writes[0]).toMatchObject({ body: { spec: { fetch: { imgpkgBundle: { image: 'mirror.example/tkg/packages/core/repo:v1.6.1_vmware.1-tkg.1' } } } } });
  });

  test('no TKR, no BOM, no label, paused cluster: nothing is written; a paused addon Secret is skipped but the repository is still patched', () => {
    expect(reconcileCluster(view({}, { tkr: undefined }))).toMatchObject({ status: 'no-tkr', writes: [] });
    expect(reconcileCluster(view({}, { bomConfigMaps: [] }))).toMatchObject({ status: 'no-bom', writes: [] });
    expect(reconcileCluster(view({}, { cluster: { ...cluster, metadata: { ...cluster.metadata, labels: {} } } }))).toMatchObject({ status: 'skipped', writes: [] });
    expect(reconcileCluster(view({}, { cluster: { ...cluster, metadata: { ...cluster.metadata, annotations: { 'cluster.x-k8s.io/paused': '' } } } }))).toMatchObject({ status: 'skipped', writes: [] });
    const paused = reconcileCluster(view({}, { addonSecrets: [{ ...addonSecret, metadata: { ...addonSecret.metadata, annotations: { 'tkg.tanzu.vmware.com/addon-paused': '' } } }] }));
    expect(paused.writes.map((w) => w.target.kind)).toEqual(['PackageRepository']);
    expect(paused.message).toContain('antrea (paused)');
  });

  test('the BOM names another packageName: the PackageInstall gets that refName', () => {
    const r = reconcileCluster(view({}, { bomConfigMaps: [bomCm(bom(undefined, 'antrea.community.tanzu.vmware.com'))] }));
    expect(writeTo(r.writes, 'PackageInstall', 'antrea')).toMatchObject({ body: { spec: { packageRef: { refName: 'antrea.community.tanzu.vmware.com' } } } });
  });

  test('watches: which events reconcile which cluster; PackageInstalls, PackageRepositories and TKR deletions reconcile nothing', () => {
    const clusters = [cluster, { ...cluster, metadata: { name: 'other', namespace: 'ns', labels: { tanzuKubernetesRelease: 'v2' } } }];
    expect(clustersForEvent('MODIFIED', cluster, clusters)).toEqual(['tkg-system/mgmt']);
    expect(clustersForEvent('ADDED', { ...cluster, metadata: { ...cluster.metadata, labels: {} } }, clusters)).toEqual([]);
    expect(clustersForEvent('MODIFIED', tkr, clusters)).toEqual(['tkg-system/mgmt']);
    expect(clustersForEvent('DELETED', tkr, clusters)).toEqual([]);
    expect(clustersForEvent('ADDED', { ...bomCm(), kind: 'ConfigMap' }, clusters)).toEqual(['tkg-system/mgmt']);
    expect(clustersForEvent('ADDED', { kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default', labels: { tanzuKubernetesRelease: TKR } } }, clusters)).toEqual([]);
    expect(clustersForEvent('MODIFIED', addonSecret, clusters)).toEqual(['tkg-system/mgmt']);
    expect(clustersForEvent('MODIFIED', { ...addonSecret, type: 'Opaque' }, clusters)).toEqual([]);
    expect(clustersForEvent('MODIFIED', { kind: 'PackageInstall', metadata: { name: 'antrea', namespace: 'tkg-system' } }, clusters)).toEqual([]);
    expect(clustersForEvent('MODIFIED', { kind: 'PackageRepository', metadata: { name: 'tanzu-core', namespace: 'tkg-system' } }, clusters)).toEqual([]);
    expect(clustersForEvent('MODIFIED', { ...cluster, metadata: { ...cluster.metadata, annotations: { 'cluster.x-k8s.io/paused': '' } } }, clusters)).toEqual([]);
  });

  test('createOrPatch: nothing to write when mutate changes nothing', () => {
    const cur = { metadata: { name: 'a' }, spec: { x: 1 } };
    expect(createOrPatch(cur, {}, (o) => (o.spec.x = 1))).toEqual({ op: 'none' });
    expect(createOrPatch(cur, {}, (o) => (o.spec = { y: 2 }))).toEqual({ op: 'patch', patch: { spec: { x: null, y: 2 } } });
  });
});

describe('the TKR controller (phase 3)', () => {
  test('a BOM ConfigMap is made only for tags no ConfigMap is annotated with: an existing BOM ConfigMap is never overwritten, even when its tag now holds another BOM', () => {
    const existing = [bomCm()];
    expect(bomTagsToCreate(['v1.22.9_vmware.1-tkg.1', 'v1.22.9_vmware.2-tkg.1'], existing)).toEqual(['v1.22.9_vmware.2-tkg.1']);
    expect(bomTagsToCreate(['v1.22.9_vmware.1-tkg.1'], existing)).toEqual([]);
    // Not keyed by name: a ConfigMap of the same name without the annotation does not stop a
    // create (the create's AlreadyExists then leaves it as it is, in the I/O layer).
    expect(bomTagsToCreate(['t'], [{ metadata: { name: 'x' } }])).toEqual(['t']);
  });

  test("the BOM ConfigMap: named after the release version (+ as ---), labelled, annotated with the tag, the BOM's bytes in binaryData.bomContent", () => {
    const text = stringify(bom());
    expect(bomConfigMap(text, 'v1.22.9_vmware.1-tkg.1')).toEqual({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: TKR, namespace: 'tkr-system', labels: { tanzuKubernetesRelease: TKR }, annotations: { bomImageTag: 'v1.22.9_vmware.1-tkg.1' } },
      binaryData: { bomContent: Buffer.from(text).toString('base64') },
    });
    expect(() => bomConfigMap('release: {}\n', 'bad')).toThrow('the BOM of tag bad has no release.version');
    expect(tkrNameOf('v1.22.9+vmware.1-tkg.1')).toBe(TKR);
  });

  test('a TKR is created (v1alpha1) for a BOM ConfigMap without one, and never for one that has it', () => {
    expect(tkrToCreate(bomCm(), new Set())).toEqual({
      apiVersion: 'run.tanzu.vmware.com/v1alpha1', kind: 'TanzuKubernetesRelease',
      metadata: { name: TKR, labels: { tanzuKubernetesRelease: TKR } },
      spec: { version: 'v1.22.9+vmware.1-tkg.1', kubernetesVersion: 'v1.22.9+vmware.1', repository: 'reg.example/tkg' },
    });
    expect(tkrToCreate(bomCm(), new Set([TKR]))).toBeUndefined();
    expect(tkrToCreate({ metadata: { name: 'bom-metadata', namespace: 'tkr-system' }, binaryData: {} }, new Set())).toBeUndefined();
  });

  test('bom-metadata from the newest compatibility tag, updated only when it changed', () => {
    expect(newestMetadataTag(['v1', 'v10', 'v2', 'latest'])).toBe('v10');
    expect(newestMetadataTag(['latest'])).toBeUndefined();
    const w = bomMetadataWrite(undefined, 'a: 1\n');
    expect(w).toMatchObject({ op: 'create', body: { metadata: { name: 'bom-metadata', namespace: 'tkr-system' }, binaryData: { compatibility: Buffer.from('a: 1\n').toString('base64') } } });
    const cur = (w as { body: object }).body;
    expect(bomMetadataWrite(cur, 'a: 1\n')).toEqual({ op: 'none' });
    expect(bomMetadataWrite(cur, 'a: 2\n')).toMatchObject({ op: 'patch' });
  });

  test("conditions: none before the management Cluster's TKGVERSION; then Compatible from the metadata, UpdatesAvailable for a newer compatible TKR; unchanged conditions are not rewritten", () => {
    const t = (v: string, conditions?: object[]) => ({ metadata: { name: tkrNameOf(v) }, spec: { version: v }, ...(conditions ? { status: { conditions } } : {}) });
    const meta = stringify({ managementClusterVersions: [{ version: 'v1.6.1', supportedKubernetesVersions: ['v1.22.9+vmware.1-tkg.1', 'v1.22.9+vmware.2-tkg.1'] }] });
    const mgmt = { metadata: { name: 'mgmt', namespace: 'tkg-system', labels: { 'cluster-role.tkg.tanzu.vmware.com/management': '' }, annotations: {} as Record<string, string> } };
    const tkrs = [t('v1.22.9+vmware.1-tkg.1'), t('v1.22.9+vmware.2-tkg.1'), t('v1.21.1+vmware.1-tkg.1')];
    expect(conditionUpdates(tkrs, meta, [mgmt], 'T')).toEqual([]);
    mgmt.metadata.annotations.TKGVERSION = 'v1.6.1';
    const u = conditionUpdates(tkrs, meta, [mgmt], 'T');
    expect(u).toEqual([
      { name: 'v1.22.9---vmware.1-tkg.1', conditions: [{ type: 'Compatible', status: 'True', lastTransitionTime: 'T' }, { type: 'UpdatesAvailable', status: 'True', message: '[v1.22.9+vmware.2-tkg.1]', lastTransitionTime: 'T' }] },
      { name: 'v1.22.9---vmware.2-tkg.1', conditions: [{ type: 'Compatible', status: 'True', lastTransitionTime: 'T' }, { type: 'UpdatesAvailable', status: 'False', lastTransitionTime: 'T' }] },
      { name: 'v1.21.1---vmware.1-tkg.1', conditions: [{ type: 'Compatible', status: 'False', lastTransitionTime: 'T' }, { type: 'UpdatesAvailable', status: 'False', lastTransitionTime: 'T' }] },
    ]);
    const after = tkrs.map((x, i) => t(x.spec.version, u[i]!.conditions));
    expect(conditionUpdates(after, meta, [mgmt], 'T2')).toEqual([]);
  });
});

describe('the registry reads', () => {
  test('the first regular file of a tar layer; repository bases refuse tags and digests', () => {
    const body = Buffer.from('release:\n  version: v1\n');
    const tar = tarOne('bom.yaml', body);
    expect(firstFile(tar)).toBe(body.toString());
    expect(firstFile(gunzipSync(gzipSync(tar)))).toBe(body.toString());
    expect(() => firstFile(Buffer.alloc(1024, 0), 'reg/x:t')).toThrow('reg/x:t holds no regular file');
    expect(repositoryBase('127.0.0.1:5000/a/tkr-bom')).toBe('http://127.0.0.1:5000/v2/a/tkr-bom');
    expect(() => repositoryBase('127.0.0.1:5000/a/tkr-bom:v1')).toThrow('is not an image repository');
  });
});

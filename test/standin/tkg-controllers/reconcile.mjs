// STAND-IN for tanzu-addons-manager and tkr-controller-manager (tanzu-framework v0.25.4, TKG 1.6):
// the pure decisions, no I/O. tkg-controllers.mjs reads the cluster, calls these, and writes what
// they return. Written by us from the facts in docs/addons-manager.md (what the real v0.25.4
// controllers were seen to do when they ran in this harness); no upstream code.
import { parse } from 'yaml';

// The real manager's flag defaults (docs/addons-manager.md, "What it writes").
export const ADDONS_NS = 'tkg-system';
export const ADDONS_SA = 'tkg-addons-app-sa';
export const ADDONS_ROLE = 'tkg-addons-app-cluster-role';
export const ADDONS_ROLE_BINDING = 'tkg-addons-app-cluster-role-binding';
export const CORE_REPO = 'tanzu-core';
export const APP_SYNC_PERIOD = '5m0s';
export const TKR_NS = 'tkr-system';
export const TKR_LABEL = 'tanzuKubernetesRelease';
export const BOM_TAG_ANNOTATION = 'bomImageTag';
export const BOM_METADATA = 'bom-metadata';
export const TKR_CONTROLLER_CONFIG = 'tkr-controller-config';
export const ADDON_SECRET_TYPE = 'tkg.tanzu.vmware.com/addon';
export const ADDON_NAME_LABEL = 'tkg.tanzu.vmware.com/addon-name';
export const CLUSTER_NAME_LABEL = 'tkg.tanzu.vmware.com/cluster-name';
export const ADDON_PAUSED = 'tkg.tanzu.vmware.com/addon-paused';
export const REMOTE_APP = 'tkg.tanzu.vmware.com/remote-app';
export const CAPI_PAUSED = 'cluster.x-k8s.io/paused';
export const ADDON_FINALIZER = 'tkg.tanzu.vmware.com/addon';
export const MGMT_ROLE_LABEL = 'cluster-role.tkg.tanzu.vmware.com/management';
export const TKGVERSION = 'TKGVERSION';

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

export function deepEqual(a, b) {
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  return a === b;
}

/** A JSON merge patch (RFC 7386) from `before` to `after`: what controller-runtime's client.MergeFrom sends. */
export function mergePatch(before, after) {
  const out = {};
  for (const k of Object.keys(before)) if (!(k in after)) out[k] = null;
  for (const [k, v] of Object.entries(after)) {
    if (!(k in before)) out[k] = v;
    else if (!deepEqual(before[k], v)) out[k] = isObj(before[k]) && isObj(v) ? mergePatch(before[k], v) : v;
  }
  return out;
}

/**
 * controllerutil.CreateOrPatch: run `mutate` on a copy of the live object (or on `skeleton` when
 * there is none) and return the write: {op: 'create', body}, {op: 'patch', patch} (a merge patch
 * of exactly what mutate changed) or {op: 'none'}. What mutate sets is overwritten, what it
 * replaces as a whole loses everything else, what it does not touch stays.
 */
export function createOrPatch(current, skeleton, mutate) {
  if (!current) {
    const body = structuredClone(skeleton);
    mutate(body);
    return { op: 'create', body };
  }
  const after = structuredClone(current);
  mutate(after);
  const patch = mergePatch(current, after);
  return Object.keys(patch).length === 0 ? { op: 'none' } : { op: 'patch', patch };
}

// ------------------------------------------------------------------------ the BOM

/** A TKR's name from a BOM release version: + becomes --- (v1.22.9+vmware.1-tkg.1 -> v1.22.9---vmware.1-tkg.1). */
export const tkrNameOf = (releaseVersion) => String(releaseVersion).replaceAll('+', '---');

/** The BOM a BOM ConfigMap holds (binaryData.bomContent, else data.bomContent), or undefined. */
export function bomOfConfigMap(cm) {
  const b64 = cm?.binaryData?.bomContent;
  const text = b64 ? Buffer.from(b64, 'base64').toString('utf8') : cm?.data?.bomContent;
  if (!text) return undefined;
  const bom = parse(text);
  return isObj(bom) ? bom : undefined;
}

/** The core package repository image a BOM names: <imageRepository>/<imagePath>:<tag> (tkg-core-packages, tanzuCorePackageRepositoryImage). */
export function coreRepositoryImage(bom, tkrControllerConfig) {
  const img = bom?.components?.['tkg-core-packages']?.[0]?.images?.tanzuCorePackageRepositoryImage;
  if (!img?.imagePath || !img?.tag) return undefined;
  return `${imageRepository(bom, tkrControllerConfig)}/${img.imagePath}:${img.tag}`;
}

/** tkr-system/tkr-controller-config's imageRepository when set, else the BOM's imageConfig.imageRepository. */
export function imageRepository(bom, tkrControllerConfig) {
  const own = tkrControllerConfig?.data?.imageRepository;
  return (own && own.trim()) || bom?.imageConfig?.imageRepository;
}

// ------------------------------------------------------------------------ addons manager

/**
 * Which clusters (namespace/name) an event reconciles (the manager's watches): a Cluster with a
 * non-empty TKR label (any event); an addon Secret -> its cluster; a TKR created or updated (not
 * deleted) -> the clusters labelled with it; a BOM ConfigMap in tkr-system created or updated ->
 * the clusters of its TKR. Objects with Cluster API's paused annotation are filtered out.
 * PackageInstalls and PackageRepositories are not watched: they map to nothing.
 */
export function clustersForEvent(type, obj, clusters) {
  if (!obj?.metadata || obj.metadata.annotations?.[CAPI_PAUSED] !== undefined) return [];
  const key = (c) => `${c.metadata.namespace}/${c.metadata.name}`;
  const labelled = (tkr) => clusters.filter((c) => tkr && c.metadata.labels?.[TKR_LABEL] === tkr).map(key);
  const kind = obj.kind;
  if (kind === 'Cluster') return obj.metadata.labels?.[TKR_LABEL] ? [key(obj)] : [];
  if (kind === 'Secret') {
    if (obj.type !== ADDON_SECRET_TYPE || obj.metadata.annotations?.[ADDON_PAUSED] !== undefined) return [];
    const name = obj.metadata.labels?.[CLUSTER_NAME_LABEL];
    return name ? [`${obj.metadata.namespace}/${name}`] : [];
  }
  if (type === 'DELETED') return [];
  if (kind === 'TanzuKubernetesRelease') return labelled(obj.metadata.name);
  if (kind === 'ConfigMap' && obj.metadata.namespace === TKR_NS) return labelled(obj.metadata.labels?.[TKR_LABEL]);
  return [];
}

/**
 * One reconcile of a cluster (AddonReconciler.reconcileNormal, the TKG 1.x path). `view` is what
 * the manager reads: {cluster, tkr, bomConfigMaps (labelled with the cluster's TKR),
 * tkrControllerConfig, addonSecrets (of the cluster), live: {'<Kind> <ns>/<name>': object}}.
 * Returns {status, message, writes: [{target: {apiVersion, kind, namespace?, name}, op, body|patch}]}:
 * status 'skipped' (no TKR label, paused), 'no-tkr' or 'no-bom' (nothing written, no requeue: the
 * TKR's or BOM ConfigMap's create event starts it later), or 'reconciled'.
 */
export function reconcileCluster(view) {
  const { cluster } = view;
  const tkrName = cluster?.metadata?.labels?.[TKR_LABEL];
  if (!tkrName) return { status: 'skipped', message: 'no tanzuKubernetesRelease label', writes: [] };
  if (cluster.metadata.annotations?.[CAPI_PAUSED] !== undefined) return { status: 'skipped', message: `${CAPI_PAUSED}`, writes: [] };
  if (!view.tkr) return { status: 'no-tkr', message: `TanzuKubernetesRelease ${tkrName} not found`, writes: [] };
  const bomCm = (view.bomConfigMaps ?? []).find((cm) => cm.metadata?.labels?.[TKR_LABEL] === tkrName && bomOfConfigMap(cm));
  if (!bomCm) return { status: 'no-bom', message: `Bom not found for TanzuKubernetesRelease ${tkrName}`, writes: [] };
  const bom = bomOfConfigMap(bomCm);
  const live = view.live ?? {};
  const writes = [];
  const put = (target, skeleton, mutate, current = live[`${target.kind} ${target.namespace ? `${target.namespace}/` : ''}${target.name}`]) => {
    const w = createOrPatch(current, { apiVersion: target.apiVersion, kind: target.kind, metadata: { name: target.name, ...(target.namespace ? { namespace: target.namespace } : {}) }, ...skeleton }, mutate);
    if (w.op !== 'none') writes.push({ target, ...w });
  };

  // reconcileCorePackageRepository: the whole spec, from the BOM, first and for every reconcile.
  const repoImage = coreRepositoryImage(bom, view.tkrControllerConfig);
  if (repoImage) {
    put({ apiVersion: 'packaging.carvel.dev/v1alpha1', kind: 'PackageRepository', namespace: ADDONS_NS, name: CORE_REPO }, {}, (o) => {
      o.spec = { fetch: { imgpkgBundle: { image: repoImage } } };
    });
  }

  const skipped = [];
  for (const secret of view.addonSecrets ?? []) {
    const addon = secret.metadata?.labels?.[ADDON_NAME_LABEL];
    const ann = secret.metadata?.annotations ?? {};
    if (!addon || secret.type !== ADDON_SECRET_TYPE) continue;
    if (ann[ADDON_PAUSED] !== undefined) {
      skipped.push(`${addon} (paused)`);
      continue;
    }
    if (ann[REMOTE_APP] !== undefined) {
      skipped.push(`${addon} (remote app: not played)`);
      continue;
    }
    const config = bom.addons?.[addon];
    if (!config?.packageName) {
      skipped.push(`${addon} (the BOM has no addons.${addon}.packageName)`);
      continue;
    }
    // The addon Secret: a finalizer and an owner reference to the Cluster.
    put({ apiVersion: 'v1', kind: 'Secret', namespace: secret.metadata.namespace, name: secret.metadata.name }, {}, (o) => {
      const fin = o.metadata.finalizers ?? [];
      if (!fin.includes(ADDON_FINALIZER)) o.metadata.finalizers = [...fin, ADDON_FINALIZER];
      const owners = o.metadata.ownerReferences ?? [];
      if (cluster.metadata.uid && !owners.some((r) => r.uid === cluster.metadata.uid)) {
        o.metadata.ownerReferences = [...owners, { apiVersion: cluster.apiVersion ?? 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', name: cluster.metadata.name, uid: cluster.metadata.uid }];
      }
    }, secret);
    put({ apiVersion: 'v1', kind: 'Namespace', name: ADDONS_NS }, {}, () => {});
    put({ apiVersion: 'v1', kind: 'ServiceAccount', namespace: ADDONS_NS, name: ADDONS_SA }, {}, () => {});
    put({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: ADDONS_ROLE }, {}, (o) => {
      o.rules = [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }];
    });
    put({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', name: ADDONS_ROLE_BINDING }, {}, (o) => {
      o.roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: ADDONS_ROLE };
      o.subjects = [{ kind: 'ServiceAccount', name: ADDONS_SA, namespace: ADDONS_NS }];
    });
    // <addon>-data-values: a copy of the addon Secret's data (data replaced as a whole).
    put({ apiVersion: 'v1', kind: 'Secret', namespace: ADDONS_NS, name: `${addon}-data-values` }, { type: 'Opaque' }, (o) => {
      o.data = { ...(secret.data ?? {}) };
    });
    // The PackageInstall: four annotations added (others kept), syncPeriod, serviceAccountName,
    // packageRef and values replaced as a whole; labels, paused, canceled, noopDelete and any other
    // annotation (packaging.carvel.dev/downgradable among them) left as they are.
    put({ apiVersion: 'packaging.carvel.dev/v1alpha1', kind: 'PackageInstall', namespace: ADDONS_NS, name: addon }, {}, (o) => {
      o.metadata.annotations = {
        ...(o.metadata.annotations ?? {}),
        'tkg.tanzu.vmware.com/addon-type': `${config.category}/${addon}`,
        'tkg.tanzu.vmware.com/addon-name': secret.metadata.name,
        'tkg.tanzu.vmware.com/addon-namespace': secret.metadata.namespace,
        'ext.packaging.carvel.dev/ytt-data-values-overlays': '',
      };
      o.spec ??= {};
      o.spec.syncPeriod = APP_SYNC_PERIOD;
      o.spec.serviceAccountName = ADDONS_SA;
      o.spec.packageRef = { refName: config.packageName, versionSelection: { prereleases: {} } };
      o.spec.values = [{ secretRef: { name: `${addon}-data-values` } }];
    });
  }
  return { status: 'reconciled', message: `TKR ${tkrName}${skipped.length ? `; skipped ${skipped.join(', ')}` : ''}`, writes };
}

// ------------------------------------------------------------------------ TKR controller

/** The BOM image tags no BOM ConfigMap is annotated with (reconcileBOMConfigMap): only these get a ConfigMap. */
export function bomTagsToCreate(tags, configMaps) {
  const have = new Set((configMaps ?? []).map((cm) => cm.metadata?.annotations?.[BOM_TAG_ANNOTATION]).filter(Boolean));
  return (tags ?? []).filter((t) => !have.has(t));
}

/**
 * The BOM ConfigMap of one BOM image tag (createBOMConfigMap), to be CREATED ONLY: the I/O layer
 * never updates or replaces an existing one (AlreadyExists is left as it is).
 */
export function bomConfigMap(bomText, tag) {
  const bom = parse(bomText);
  const version = bom?.release?.version;
  if (!version) throw new Error(`the BOM of tag ${tag} has no release.version`);
  const name = tkrNameOf(version);
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name, namespace: TKR_NS, labels: { [TKR_LABEL]: name }, annotations: { [BOM_TAG_ANNOTATION]: tag } },
    binaryData: { bomContent: Buffer.from(bomText).toString('base64') },
  };
}

/** The v1alpha1 TanzuKubernetesRelease of a BOM ConfigMap (reconcileConfigMap), CREATED ONLY; undefined when it is no BOM ConfigMap or the TKR exists. */
export function tkrToCreate(cm, existingTkrNames) {
  if (cm?.metadata?.namespace !== TKR_NS || !cm.metadata.labels?.[TKR_LABEL]) return undefined;
  const bom = bomOfConfigMap(cm);
  if (!bom?.release?.version) return undefined;
  const name = tkrNameOf(bom.release.version);
  if (existingTkrNames.has(name)) return undefined;
  return {
    apiVersion: 'run.tanzu.vmware.com/v1alpha1', kind: 'TanzuKubernetesRelease',
    metadata: { name, labels: { [TKR_LABEL]: name } },
    spec: {
      version: bom.release.version,
      kubernetesVersion: bom.components?.kubernetes?.[0]?.version ?? '',
      repository: bom.imageConfig?.imageRepository ?? '',
    },
  };
}

/** The newest compatibility metadata tag (v1, v2, ... : the highest number wins). */
export function newestMetadataTag(tags) {
  const num = (t) => Number(/^v(\d+)$/.exec(t)?.[1] ?? -1);
  return [...(tags ?? [])].filter((t) => num(t) >= 0).sort((a, b) => num(b) - num(a))[0];
}

/** tkr-system/bom-metadata as the TKR controller keeps it (created, or its binaryData.compatibility updated). */
export function bomMetadataWrite(current, compatibilityText) {
  return createOrPatch(current, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: BOM_METADATA, namespace: TKR_NS } }, (o) => {
    o.binaryData = { ...(o.binaryData ?? {}), compatibility: Buffer.from(compatibilityText).toString('base64') };
  });
}

/**
 * The TKRs' Compatible and UpdatesAvailable conditions (updateConditions): they need the
 * management Cluster's TKGVERSION annotation; Compatible is True when the compatibility metadata
 * lists the TKR's version for that TKG version. Returns [{name, conditions}] for the TKRs whose
 * conditions change (a status patch each), [] without a TKGVERSION.
 */
export function conditionUpdates(tkrs, compatibilityText, clusters, now) {
  const mgmt = (clusters ?? []).find((c) => c.metadata?.labels?.[MGMT_ROLE_LABEL] !== undefined && c.metadata?.annotations?.[TKGVERSION]);
  const tkgVersion = mgmt?.metadata?.annotations?.[TKGVERSION];
  if (!tkgVersion || !compatibilityText) return [];
  const meta = parse(compatibilityText) ?? {};
  const supported = new Set((meta.managementClusterVersions ?? []).find((m) => m.version === tkgVersion)?.supportedKubernetesVersions ?? []);
  const compatible = (t) => supported.has(t.spec?.version);
  const out = [];
  for (const t of tkrs) {
    const newer = tkrs.filter((u) => u !== t && compatible(u) && sameMinor(u.spec?.version, t.spec?.version) && u.spec.version > t.spec.version).map((u) => u.spec.version).sort();
    const want = [
      { type: 'Compatible', status: compatible(t) ? 'True' : 'False' },
      newer.length ? { type: 'UpdatesAvailable', status: 'True', message: `[${newer.join(' ')}]` } : { type: 'UpdatesAvailable', status: 'False' },
    ];
    const cur = t.status?.conditions ?? [];
    const same = want.every((w) => cur.some((c) => c.type === w.type && c.status === w.status && (c.message ?? '') === (w.message ?? '')));
    if (same) continue;
    out.push({
      name: t.metadata.name,
      conditions: want.map((w) => {
        const before = cur.find((c) => c.type === w.type);
        return { ...w, lastTransitionTime: before && before.status === w.status ? before.lastTransitionTime : now };
      }),
    });
  }
  return out;
}

const minorOf = (v) => /^v?(\d+\.\d+)\./.exec(String(v ?? ''))?.[1];
const sameMinor = (a, b) => minorOf(a) !== undefined && minorOf(a) === minorOf(b);

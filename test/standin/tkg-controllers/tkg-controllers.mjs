#!/usr/bin/env node
// STAND-IN for TKG 1.6's management-cluster controllers, for devpkg's tests. It is NOT
// tanzu-addons-manager nor tkr-controller-manager (no registry we use serves tanzu-framework);
// it plays what docs/addons-manager.md records those two (v0.25.4) did when they ran in this
// harness, as a controller process against the cluster of the kubeconfig it is given:
//
//   tkg-controllers.mjs addons-manager --kubeconfig FILE [--sync-period SECONDS] [--ready-file F]
//       phase 2 and its re-patches: watches Clusters with a tanzuKubernetesRelease label, addon
//       Secrets, TanzuKubernetesReleases (v1alpha1) and BOM ConfigMaps in tkr-system, and for each
//       cluster they map to writes the tanzu-core PackageRepository and, per addon Secret, the
//       PackageInstall and what it needs, with CreateOrPatch merge patches (reconcile.mjs).
//   tkg-controllers.mjs tkr-controller --kubeconfig FILE --bom-image REPO --metadata-image REPO
//       [--initial-discover-frequency S] [--continuous-discover-frequency S] [--ready-file F]
//       phase 3's half: every S seconds lists the BOM image's tags and creates a BOM ConfigMap for
//       each tag no ConfigMap is annotated with, keeps tkr-system/bom-metadata from the newest
//       compatibility image, creates the TKR of each BOM ConfigMap (watched) that has none, and
//       sets the TKRs' Compatible/UpdatesAvailable conditions once the management Cluster has
//       TKGVERSION. BOM ConfigMaps and TKRs are created only, never overwritten.
//
// Each writes with its own field manager (tanzu-addons-manager-standin, tkr-controller-standin),
// logs to stderr, writes --ready-file once its watches run, and stops on SIGTERM/SIGINT.
// Registry access is plain HTTP (DEVPKG_STANDIN_REGISTRY_SCHEME=https to change it).
import { rmSync, writeFileSync } from 'node:fs';
import { connect } from './kube.mjs';
import { imageFile, listTags } from './registry.mjs';
import {
  ADDON_SECRET_TYPE, ADDONS_NS, BOM_METADATA, CLUSTER_NAME_LABEL, TKR_CONTROLLER_CONFIG, TKR_LABEL, TKR_NS,
  bomConfigMap, bomMetadataWrite, bomTagsToCreate, clustersForEvent, conditionUpdates, newestMetadataTag, reconcileCluster, tkrToCreate,
} from './reconcile.mjs';

const USAGE = `usage: tkg-controllers.mjs addons-manager --kubeconfig FILE [--sync-period SECONDS] [--ready-file FILE]
       tkg-controllers.mjs tkr-controller --kubeconfig FILE --bom-image REPO --metadata-image REPO [--initial-discover-frequency S] [--continuous-discover-frequency S] [--ready-file FILE]`;

const role = process.argv[2];
const NAMES = { 'addons-manager': 'tanzu-addons-manager-standin', 'tkr-controller': 'tkr-controller-standin' };

function log(m) {
  process.stderr.write(`${new Date().toISOString()} ${NAMES[role] ?? 'tkg-controllers'}: ${m}\n`);
}
function die(m) {
  process.stderr.write(`tkg-controllers.mjs: ${m}\n${USAGE}\n`);
  process.exit(2);
}

function flags(args, known) {
  const out = {};
  for (let i = 0; i < args.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(args[i]);
    if (!m || !known.includes(m[1])) die(`unknown argument ${args[i]}`);
    const v = m[2] ?? args[++i];
    if (v === undefined || v === '') die(`--${m[1]} needs a value`);
    out[m[1]] = v;
  }
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const key = (o) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
const describe = (w) => `${w.op === 'create' ? 'created' : 'patched'} ${w.target.kind} ${w.target.namespace ? `${w.target.namespace}/` : ''}${w.target.name}${w.op === 'patch' ? `: ${JSON.stringify(w.patch)}` : ''}`;

let stopping = false;
const stoppers = [];
function onStop(readyFile) {
  const stop = async (sig) => {
    if (stopping) return;
    stopping = true;
    log(`${sig}: stopping`);
    for (const s of stoppers) await s().catch(() => undefined);
    if (readyFile) rmSync(readyFile, { force: true });
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** A work queue of keys with one worker: a key queued while it is being reconciled runs again after; errors requeue after a second. */
function workQueue(work) {
  const queued = new Set();
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    while (queued.size && !stopping) {
      const k = queued.values().next().value;
      queued.delete(k);
      try {
        await work(k);
      } catch (e) {
        log(`reconcile ${k} failed, retrying in 1s: ${e.message}`);
        setTimeout(() => add(k), 1000);
      }
    }
    running = false;
  };
  const add = (k) => {
    queued.add(k);
    void run();
  };
  return add;
}

// ------------------------------------------------------------------------ addons manager

async function addonsManager(args) {
  const f = flags(args, ['kubeconfig', 'sync-period', 'ready-file']);
  if (!f.kubeconfig) die('--kubeconfig FILE is required (the cluster the controller acts on)');
  onStop(f['ready-file']);
  const kube = await connect(f.kubeconfig, NAMES['addons-manager']);
  log(`acting on ${kube.server} (kubeconfig ${f.kubeconfig}); a stand-in for tanzu-addons-manager v0.25.4's AddonReconciler (TKG 1.x)`);
  const clusters = new Map();

  const reconcile = async (k) => {
    const [namespace, name] = k.split('/');
    const cluster = await kube.get('Cluster', namespace, name);
    if (!cluster) return; // deleted: the CLI's delete removes what the manager made
    const tkrName = cluster.metadata.labels?.[TKR_LABEL];
    const tkr = tkrName ? await kube.get('TanzuKubernetesRelease', undefined, tkrName) : undefined;
    const bomConfigMaps = tkrName ? await kube.list('ConfigMap', TKR_NS, `${TKR_LABEL}=${tkrName}`) : [];
    const tkrControllerConfig = await kube.get('ConfigMap', TKR_NS, TKR_CONTROLLER_CONFIG);
    const addonSecrets = (await kube.list('Secret', namespace, `${CLUSTER_NAME_LABEL}=${name}`)).filter((s) => s.type === ADDON_SECRET_TYPE);
    // What reconcileCluster may write, read live (CreateOrPatch reads before it patches).
    const live = {};
    const read = async (kind, ns, n) => {
      const o = await kube.get(kind, ns, n);
      if (o) live[`${kind} ${ns ? `${ns}/` : ''}${n}`] = o;
    };
    await read('PackageRepository', ADDONS_NS, 'tanzu-core');
    await read('Namespace', undefined, ADDONS_NS);
    await read('ServiceAccount', ADDONS_NS, 'tkg-addons-app-sa');
    await read('ClusterRole', undefined, 'tkg-addons-app-cluster-role');
    await read('ClusterRoleBinding', undefined, 'tkg-addons-app-cluster-role-binding');
    for (const s of addonSecrets) {
      const addon = s.metadata.labels?.['tkg.tanzu.vmware.com/addon-name'];
      if (!addon) continue;
      await read('Secret', ADDONS_NS, `${addon}-data-values`);
      await read('PackageInstall', ADDONS_NS, addon);
    }
    const r = reconcileCluster({ cluster, tkr, bomConfigMaps, tkrControllerConfig, addonSecrets, live });
    if (r.status !== 'reconciled') {
      log(`cluster ${k}: ${r.status} (${r.message}); nothing written`);
      return;
    }
    for (const w of r.writes) {
      if (w.op === 'create') await kube.create(w.target.kind, w.body);
      else await kube.mergePatch(w.target.kind, w.target.namespace, w.target.name, w.patch);
      log(`cluster ${k}: ${describe(w)}`);
    }
    log(`cluster ${k}: reconciled (${r.message}; ${r.writes.length} write(s))`);
  };
  const enqueue = workQueue(reconcile);
  const onEvent = (type, obj) => {
    if (obj.kind === 'Cluster') {
      if (type === 'DELETED') clusters.delete(key(obj));
      else clusters.set(key(obj), obj);
    }
    for (const k of clustersForEvent(type, obj, [...clusters.values()])) enqueue(k);
  };
  const onError = (what) => (e) => log(`watch ${what}: ${e.message}; retrying`);
  // Clusters first, so that the others' events find the clusters they map to.
  stoppers.push(kube.watch('Cluster', undefined, onEvent, onError('Clusters')).stop);
  await sleep(300);
  stoppers.push(kube.watch('Secret', undefined, onEvent, onError('Secrets')).stop);
  stoppers.push(kube.watch('TanzuKubernetesRelease', undefined, onEvent, onError('TanzuKubernetesReleases')).stop);
  stoppers.push(kube.watch('ConfigMap', TKR_NS, onEvent, onError('ConfigMaps in tkr-system')).stop);
  // The manager's resync (--sync-period, default 10 minutes): every cluster again.
  const period = Number(f['sync-period'] ?? 600) * 1000;
  const timer = setInterval(() => {
    for (const c of clusters.values()) for (const k of clustersForEvent('RESYNC', c, [])) enqueue(k);
  }, period);
  stoppers.push(async () => clearInterval(timer));
  if (f['ready-file']) writeFileSync(f['ready-file'], `${process.pid}\n`);
  log('watching Clusters, addon Secrets, TanzuKubernetesReleases and BOM ConfigMaps');
}

// ------------------------------------------------------------------------ TKR controller

async function tkrController(args) {
  const f = flags(args, ['kubeconfig', 'bom-image', 'metadata-image', 'initial-discover-frequency', 'continuous-discover-frequency', 'ready-file']);
  if (!f.kubeconfig) die('--kubeconfig FILE is required (the cluster the controller acts on)');
  if (!f['bom-image'] || !f['metadata-image']) die('--bom-image REPO and --metadata-image REPO are required (the BOM and compatibility image repositories)');
  onStop(f['ready-file']);
  const scheme = process.env.DEVPKG_STANDIN_REGISTRY_SCHEME || 'http';
  const kube = await connect(f.kubeconfig, NAMES['tkr-controller']);
  log(`acting on ${kube.server} (kubeconfig ${f.kubeconfig}); BOMs from ${f['bom-image']}, compatibility from ${f['metadata-image']}; a stand-in for tkr-controller-manager v0.25.4`);

  // reconcileConfigMap: the TKR of a BOM ConfigMap, created when it does not exist.
  const onConfigMap = async (cm) => {
    const existing = new Set((await kube.list('TanzuKubernetesRelease')).map((t) => t.metadata.name));
    const tkr = tkrToCreate(cm, existing);
    if (!tkr) return;
    try {
      await kube.create('TanzuKubernetesRelease', tkr);
      log(`created TanzuKubernetesRelease ${tkr.metadata.name} (v1alpha1) from BOM ConfigMap ${TKR_NS}/${cm.metadata.name}`);
    } catch (e) {
      if (e.code !== 409) throw e; // AlreadyExists: never overwritten
    }
  };
  const enqueue = workQueue(async (k) => {
    const cm = await kube.get('ConfigMap', TKR_NS, k.split('/')[1]);
    if (cm) await onConfigMap(cm);
  });
  stoppers.push(kube.watch('ConfigMap', TKR_NS, (type, cm) => type !== 'DELETED' && enqueue(key(cm)), (e) => log(`watch ConfigMaps: ${e.message}; retrying`)).stop);

  // SyncRelease: bom-metadata from the newest compatibility image, a BOM ConfigMap per new BOM tag,
  // then the TKRs' conditions.
  const syncRelease = async () => {
    const metaTag = newestMetadataTag(await listTags(f['metadata-image'], scheme));
    let compatibility;
    if (metaTag) {
      compatibility = await imageFile(f['metadata-image'], metaTag, scheme);
      const w = bomMetadataWrite(await kube.get('ConfigMap', TKR_NS, BOM_METADATA), compatibility);
      if (w.op === 'create') await kube.create('ConfigMap', w.body);
      if (w.op === 'patch') await kube.mergePatch('ConfigMap', TKR_NS, BOM_METADATA, w.patch);
      if (w.op !== 'none') log(`${w.op === 'create' ? 'created' : 'updated'} ConfigMap ${TKR_NS}/${BOM_METADATA} from ${f['metadata-image']}:${metaTag}`);
    }
    const cms = await kube.list('ConfigMap', TKR_NS);
    for (const tag of bomTagsToCreate(await listTags(f['bom-image'], scheme), cms)) {
      let cm;
      try {
        cm = bomConfigMap(await imageFile(f['bom-image'], tag, scheme), tag);
      } catch (e) {
        log(`BOM tag ${tag}: ${e.message}; skipped`);
        continue;
      }
      try {
        await kube.create('ConfigMap', cm);
        log(`created BOM ConfigMap ${TKR_NS}/${cm.metadata.name} from ${f['bom-image']}:${tag}`);
      } catch (e) {
        if (e.code !== 409) throw e; // AlreadyExists: a BOM ConfigMap is never overwritten
        log(`BOM ConfigMap ${TKR_NS}/${cm.metadata.name} exists (tag ${tag}); left as it is`);
      }
    }
    const tkrs = await kube.list('TanzuKubernetesRelease');
    for (const u of conditionUpdates(tkrs, compatibility, await kube.list('Cluster'), new Date().toISOString().replace(/\.\d+Z$/, 'Z'))) {
      await kube.mergePatchStatus('TanzuKubernetesRelease', undefined, u.name, { status: { conditions: u.conditions } });
      log(`TanzuKubernetesRelease ${u.name}: ${u.conditions.map((c) => `${c.type}=${c.status}`).join(', ')}`);
    }
  };
  const initial = Number(f['initial-discover-frequency'] ?? 60) * 1000;
  const continuous = Number(f['continuous-discover-frequency'] ?? 600) * 1000;
  let synced = false;
  const loop = async () => {
    while (!stopping) {
      try {
        await syncRelease();
        synced = true;
      } catch (e) {
        log(`discovery failed: ${e.message}`);
      }
      await sleep(synced ? continuous : initial);
    }
  };
  void loop();
  if (f['ready-file']) writeFileSync(f['ready-file'], `${process.pid}\n`);
  log('discovering BOM tags and watching ConfigMaps in tkr-system');
}

if (role === 'addons-manager') await addonsManager(process.argv.slice(3));
else if (role === 'tkr-controller') await tkrController(process.argv.slice(3));
else die(role ? `unknown controller ${role}` : 'which controller?');

/**
 * Pure checks of what `tanzu management-cluster create --dry-run` renders: our ClusterResourceSet
 * and Secret carry the dev Package, and the CNI (or other category) manifests the CRSs carry hold
 * the edit made to `bundle/config`.
 */
import { parse, parseAllDocuments } from 'yaml';
import { ADDON_TYPE_ANNOTATION } from '../packages/overlay.js';

export type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const RESOURCE_SET_TYPE = 'addons.cluster.x-k8s.io/resource-set';

export function parseDocs(text: string): Doc[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Doc | null)
    .filter((d): d is Doc => !!d && typeof d === 'object' && !Array.isArray(d));
}

/** The documents a Secret or ConfigMap of a ClusterResourceSet carries (every data/stringData value). */
export function carriedDocs(holder: Doc): Doc[] {
  const out: Doc[] = [];
  for (const [k, v] of Object.entries<string>(holder.stringData ?? {})) out.push(...safeDocs(v, k));
  const data = holder.data ?? {};
  for (const [k, v] of Object.entries<string>(data)) {
    const text = holder.kind === 'Secret' ? Buffer.from(String(v), 'base64').toString('utf8') : String(v);
    out.push(...safeDocs(text, k));
  }
  return out;
}

function safeDocs(text: string, _key: string): Doc[] {
  try {
    return parseDocs(text);
  } catch {
    return [];
  }
}

export function key(d: Doc): string {
  return `${d.kind}/${d.metadata?.namespace ? `${d.metadata.namespace}/` : ''}${d.metadata?.name}`;
}

/** Leaves of a document as path -> JSON value, for comparing renders. */
export function leaves(d: unknown, prefix = ''): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (v: unknown, p: string) => {
    if (v && typeof v === 'object') {
      const entries = Array.isArray(v) ? v.map((x, i) => [String(i), x] as const) : Object.entries(v as object);
      if (entries.length === 0) out.set(p, JSON.stringify(v));
      for (const [k, x] of entries) walk(x, p ? `${p}.${k}` : k);
    } else out.set(p, JSON.stringify(v));
  };
  walk(d, prefix);
  return out;
}

/** Leaves present in `after` with another value than in `before` (or absent there), per object. */
export function editedLeaves(before: Doc[], after: Doc[]): Map<string, Map<string, string>> {
  const old = new Map(before.map((d) => [key(d), leaves(d)]));
  const out = new Map<string, Map<string, string>>();
  for (const d of after) {
    const o = old.get(key(d));
    const changed = new Map<string, string>();
    for (const [p, v] of leaves(d)) if (!o || o.get(p) !== v) changed.set(p, v);
    if (changed.size) out.set(key(d), changed);
  }
  return out;
}

export interface DryRunExpectation {
  /** Short package name, e.g. antrea (object names are <cluster>-<name>-dev-package). */
  pkgName: string;
  devPackageName: string;
  devVersion: string;
  /** The edited config rendered alone, and the vendored one it replaced (empty when unknown). */
  edited: Doc[];
  vendored: Doc[];
  /**
   * CATEGORY/NAME (the tkg.tanzu.vmware.com/addon-type of the providers' own ClusterResourceSet for
   * the package). When the render has no such ClusterResourceSet at all, phase 1 does not apply to
   * this cluster (e.g. vsphere-cpi on docker): a note, not a problem.
   */
  addonType?: string;
}

export interface DryRunCheck {
  ok: boolean;
  problems: string[];
  notes: string[];
  crs?: string;
  secret?: string;
  /** Objects of the edited config found in CRS-carried manifests. */
  carried: string[];
}

/** Checks a dry-run render. */
export function checkDryRun(rendered: string, e: DryRunExpectation): DryRunCheck {
  const docs = parseDocs(rendered);
  const problems: string[] = [];
  const notes: string[] = [];
  const suffix = `-${e.pkgName}-dev-package`;
  const crs = docs.find((d) => d.kind === 'ClusterResourceSet' && String(d.metadata?.name ?? '').endsWith(suffix));
  const secret = docs.find((d) => d.kind === 'Secret' && String(d.metadata?.name ?? '').endsWith(suffix));
  if (!crs) problems.push(`no ClusterResourceSet *${suffix} in the render: the 04_user_customizations file was not picked up (is TKG_CLUSTER_ROLE "workload"?)`);
  if (!secret) problems.push(`no Secret *${suffix} in the render`);
  if (crs && secret) {
    const refs: Doc[] = crs.spec?.resources ?? [];
    if (!refs.some((r) => r.kind === 'Secret' && r.name === secret.metadata?.name)) problems.push(`ClusterResourceSet ${crs.metadata?.name} does not list Secret ${secret.metadata?.name}`);
    if (secret.type !== RESOURCE_SET_TYPE) problems.push(`Secret ${secret.metadata?.name} has type ${secret.type}, not ${RESOURCE_SET_TYPE}`);
    const pkg = carriedDocs(secret).find((d) => d.kind === 'Package');
    if (!pkg) problems.push(`Secret ${secret.metadata?.name} carries no Package`);
    else if (pkg.metadata?.name !== e.devPackageName || pkg.spec?.version !== e.devVersion) {
      problems.push(`Secret ${secret.metadata?.name} carries Package ${pkg.metadata?.name} ${pkg.spec?.version}, not ${e.devPackageName} ${e.devVersion}`);
    }
  }

  // Everything the other CRSs carry.
  const holders = new Map(docs.filter((d) => d.kind === 'Secret' || d.kind === 'ConfigMap').map((d) => [`${d.kind}/${d.metadata?.name}`, d]));
  const carried: Doc[] = [];
  for (const c of docs.filter((d) => d.kind === 'ClusterResourceSet' && d !== crs)) {
    for (const r of c.spec?.resources ?? []) {
      const h = holders.get(`${r.kind}/${r.name}`);
      if (h) carried.push(...carriedDocs(h));
    }
  }
  const byKey = new Map(carried.map((d) => [`${d.kind}/${d.metadata?.name}`, d]));
  const found: string[] = [];
  const missing: string[] = [];
  for (const d of e.edited) {
    const k = `${d.kind}/${d.metadata?.name}`;
    (byKey.has(k) ? found : missing).push(k);
  }
  const phase1Absent =
    !!e.addonType && !docs.some((d) => d.kind === 'ClusterResourceSet' && d !== crs && d.metadata?.annotations?.[ADDON_TYPE_ANNOTATION] === e.addonType);
  if (phase1Absent) {
    notes.push(
      `phase 1 does not apply to this cluster: the render has no ClusterResourceSet of ${e.addonType} (the providers install ${e.pkgName} that way only on other infrastructures or cluster roles); ` +
        'the dev Package still arrives through our ClusterResourceSet',
    );
  } else if (e.edited.length && found.length === 0) problems.push(`no ClusterResourceSet carries the objects of the edited config (${missing.join(', ')})`);
  else if (missing.length) notes.push(`not carried by any ClusterResourceSet: ${missing.join(', ')}`);

  if (e.vendored.length && e.edited.length && found.length) {
    const edits = editedLeaves(e.vendored, e.edited);
    if (edits.size === 0) notes.push('the edited config renders the same objects as the vendored one it replaced');
    let seen = 0;
    let lost = 0;
    const lostAt: string[] = [];
    for (const [k, changed] of edits) {
      const [kind, ...rest] = k.split('/');
      const c = byKey.get(`${kind}/${rest[rest.length - 1]}`);
      const have = c ? leaves(c) : new Map<string, string>();
      for (const [p, v] of changed) {
        if (have.get(p) === v) seen++;
        else {
          lost++;
          if (lostAt.length < 5) lostAt.push(`${k} ${p}`);
        }
      }
    }
    if (edits.size && seen === 0) problems.push(`the rendered manifests do not hold the edit (${lostAt.join('; ')}): the vendored library is not what the render used`);
    else if (lost) notes.push(`${lost} edited value(s) are set differently by the providers' data values or overlays (e.g. ${lostAt.join('; ')})`);
    else if (seen) notes.push(`all ${seen} edited value(s) are in the rendered manifests`);
  }
  return {
    ok: problems.length === 0,
    problems,
    notes,
    ...(crs ? { crs: `${crs.metadata?.namespace}/${crs.metadata?.name}` } : {}),
    ...(secret ? { secret: `${secret.metadata?.namespace}/${secret.metadata?.name}` } : {}),
    carried: found,
  };
}

/**
 * Pure: why a dry-run render failed, when the failure is in the library devpkg replaced (ytt names
 * it as `library.eval: Evaluating library '<path>'`): the providers evaluate the edited config with
 * their own data values, which it must accept. Undefined for other failures.
 */
export function explainRenderFailure(message: string, library: { library: string; libFile: string } | undefined, configDir: string): string | undefined {
  if (!library || !message.includes(`Evaluating library '${library.library}'`)) return undefined;
  const values = /Overlaying data values/.test(message);
  return (
    `the render fails inside the library devpkg replaced (${library.library}, loaded by ${library.libFile}): the providers evaluate ${configDir} ` +
    (values
      ? 'with their own data values (02_addons/...), and the edited config does not declare all of them; a package config from another source (e.g. TCE instead of TKG) needs the same values (values.yaml / schema) as the vendored one'
      : 'with their own data values and overlays, and the edited config does not evaluate there')
  );
}

/** Pure: a list of objects for a log line, the first `most` of them and how many more. */
export function listSome(items: string[], most = 6): string {
  return items.length <= most ? items.join(', ') : `${items.slice(0, most).join(', ')} and ${items.length - most} more`;
}

/** Flat `KEY: value` cluster config -> the CLUSTER_NAME it sets (undefined when absent). */
export function clusterNameOf(configText: string): string | undefined {
  const v = (parse(configText) ?? {}) as Record<string, unknown>;
  const n = v.CLUSTER_NAME;
  return typeof n === 'string' && n ? n : undefined;
}

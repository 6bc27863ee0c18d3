/**
 * Assertions on objects the package renders, checked after a win (input `assert`), e.g.
 *   - kind: DaemonSet
 *     namespace: kube-system
 *     name: antrea-agent
 *     path: spec.template.metadata.annotations.foo
 *     equals: bar
 * Parsing and checking are pure; reading the objects is injected.
 */
import { parse, stringify } from 'yaml';
import { UsageError } from '../errors.js';
import type { AssertionResult } from '../results.js';

export interface Assertion {
  kind: string;
  apiVersion?: string;
  namespace?: string;
  name: string;
  /** Dotted path; keys with dots or slashes in brackets: metadata.annotations["kapp.k14s.io/x"]; list items as [0]. */
  path?: string;
  equals?: unknown;
  /** true: the path must exist; false: it must not. Default when no other check: true. */
  exists?: boolean;
  /** A regular expression the value (as text) must match. */
  matches?: string;
}

/** apiVersions of the kinds a core package usually renders; other kinds use discovery or apiVersion. */
export const KNOWN_KINDS: Record<string, string> = {
  ConfigMap: 'v1',
  Secret: 'v1',
  Service: 'v1',
  ServiceAccount: 'v1',
  Namespace: 'v1',
  Pod: 'v1',
  DaemonSet: 'apps/v1',
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  Job: 'batch/v1',
  CronJob: 'batch/v1',
  ClusterRole: 'rbac.authorization.k8s.io/v1',
  ClusterRoleBinding: 'rbac.authorization.k8s.io/v1',
  Role: 'rbac.authorization.k8s.io/v1',
  RoleBinding: 'rbac.authorization.k8s.io/v1',
  CustomResourceDefinition: 'apiextensions.k8s.io/v1',
  APIService: 'apiregistration.k8s.io/v1',
  MutatingWebhookConfiguration: 'admissionregistration.k8s.io/v1',
  ValidatingWebhookConfiguration: 'admissionregistration.k8s.io/v1',
  PackageInstall: 'packaging.carvel.dev/v1alpha1',
  App: 'kappctrl.k14s.io/v1alpha1',
};

const FIELDS = new Set(['kind', 'apiVersion', 'namespace', 'name', 'path', 'equals', 'exists', 'matches']);

export function parseAssertions(text: string): Assertion[] {
  if (!text.trim()) return [];
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new UsageError(`assert: not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (!Array.isArray(doc)) throw new UsageError('assert: must be a YAML list of {kind, namespace, name, path, equals|exists|matches}');
  return doc.map((item, i) => {
    const where = `assert[${i}]`;
    if (!item || typeof item !== 'object') throw new UsageError(`${where}: must be a mapping`);
    const a = item as Record<string, unknown>;
    for (const k of Object.keys(a)) {
      if (!FIELDS.has(k)) throw new UsageError(`${where}: unknown field "${k}"; fields are ${[...FIELDS].join(', ')}`);
    }
    for (const k of ['kind', 'name'] as const) {
      if (typeof a[k] !== 'string' || !a[k]) throw new UsageError(`${where}: "${k}" is required`);
    }
    if (a.exists !== undefined && typeof a.exists !== 'boolean') throw new UsageError(`${where}: "exists" must be true or false`);
    if (a.matches !== undefined) {
      if (typeof a.matches !== 'string') throw new UsageError(`${where}: "matches" must be a string (a regular expression)`);
      try {
        new RegExp(a.matches);
      } catch (err) {
        throw new UsageError(`${where}: "matches" is not a regular expression: ${(err as Error).message}`);
      }
    }
    const checks = ['equals', 'exists', 'matches'].filter((k) => a[k] !== undefined);
    if (checks.length > 0 && a.path === undefined) throw new UsageError(`${where}: ${checks[0]} needs a "path"`);
    if (a.path !== undefined) parsePath(String(a.path), where);
    return {
      kind: a.kind as string,
      name: a.name as string,
      ...(a.apiVersion !== undefined ? { apiVersion: String(a.apiVersion) } : {}),
      ...(a.namespace !== undefined ? { namespace: String(a.namespace) } : {}),
      ...(a.path !== undefined ? { path: String(a.path) } : {}),
      ...(a.equals !== undefined ? { equals: a.equals } : {}),
      ...(a.exists !== undefined ? { exists: a.exists as boolean } : {}),
      ...(a.matches !== undefined ? { matches: a.matches as string } : {}),
    };
  });
}

/** Splits `a.b[0]["c.d/e"]` into ['a', 'b', 0, 'c.d/e']. */
export function parsePath(path: string, where = 'assert'): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /\.?([^.[\]]+)|\[(\d+)\]|\[(?:"([^"]*)"|'([^']*)')\]/gy;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < path.length && (m = re.exec(path))) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(m[3] ?? m[4] ?? '');
    pos = re.lastIndex;
  }
  if (pos !== path.length || out.length === 0) throw new UsageError(`${where}: path "${path}" does not parse at character ${pos + 1}`);
  return out;
}

export function getPath(obj: unknown, path: Array<string | number>): { found: boolean; value?: unknown } {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return { found: false };
    if (typeof p === 'number') {
      if (!Array.isArray(cur) || p >= cur.length) return { found: false };
      cur = cur[p];
    } else {
      if (Array.isArray(cur) || !(p in (cur as object))) return { found: false };
      cur = (cur as Record<string, unknown>)[p];
    }
  }
  return { found: true, value: cur };
}

export function describeAssertion(a: Assertion): string {
  const obj = `${a.kind} ${a.namespace ? `${a.namespace}/` : ''}${a.name}`;
  if (!a.path) return `${obj} exists`;
  const check =
    a.equals !== undefined
      ? `equals ${JSON.stringify(a.equals)}`
      : a.matches !== undefined
        ? `matches /${a.matches}/`
        : a.exists === false
          ? 'is absent'
          : 'exists';
  return `${obj}: ${a.path} ${check}`;
}

function asText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  // YAML input `equals: 3` should match "3" in an annotation and vice versa for scalars.
  if ((typeof a !== 'object' || a === null) && (typeof b !== 'object' || b === null)) return String(a) === String(b);
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

/** Checks one assertion against the object read from the cluster (undefined: not found). */
export function checkAssertion(a: Assertion, obj: unknown | undefined, readError?: string): AssertionResult {
  const description = describeAssertion(a);
  if (readError) return { description, ok: false, detail: readError };
  if (obj === undefined) return { description, ok: false, detail: `${a.kind} ${a.namespace ? `${a.namespace}/` : ''}${a.name} not found` };
  if (!a.path) return { description, ok: true, detail: 'found' };
  const { found, value } = getPath(obj, parsePath(a.path));
  if (a.exists === false) {
    return { description, ok: !found, detail: found ? `present: ${trim(asText(value))}` : 'absent' };
  }
  if (!found) return { description, ok: false, detail: `${a.path} is not set` };
  if (a.equals !== undefined) {
    const ok = deepEqual(value, a.equals);
    return { description, ok, detail: ok ? `is ${trim(asText(value))}` : `is ${trim(asText(value))}, expected ${trim(asText(a.equals))}` };
  }
  if (a.matches !== undefined) {
    const ok = new RegExp(a.matches).test(asText(value));
    return { description, ok, detail: ok ? `is ${trim(asText(value))}` : `is ${trim(asText(value))}, which does not match /${a.matches}/` };
  }
  return { description, ok: true, detail: `is ${trim(asText(value))}` };
}

function trim(s: string): string {
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

export function assertionsToYaml(list: Assertion[]): string {
  return stringify(list);
}

/** Reads each asserted object (KubernetesObjectApi finds the resource for apiVersion+kind) and checks it. */
export async function runAssertions(kc: import('@kubernetes/client-node').KubeConfig, list: Assertion[]): Promise<AssertionResult[]> {
  if (list.length === 0) return [];
  const k8s = await import('@kubernetes/client-node');
  const api = k8s.KubernetesObjectApi.makeApiClient(kc);
  const out: AssertionResult[] = [];
  for (const a of list) {
    const apiVersion = a.apiVersion ?? KNOWN_KINDS[a.kind];
    if (!apiVersion) {
      out.push(checkAssertion(a, undefined, `devpkg does not know the apiVersion of kind ${a.kind}; add apiVersion: to the assertion`));
      continue;
    }
    try {
      const obj = await api.read({ apiVersion, kind: a.kind, metadata: { name: a.name, ...(a.namespace ? { namespace: a.namespace } : {}) } });
      out.push(checkAssertion(a, obj));
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code === 404) out.push(checkAssertion(a, undefined));
      else out.push(checkAssertion(a, undefined, `could not read ${a.kind} ${a.namespace ?? ''}/${a.name}: ${(err as Error).message.split('\n')[0]}`));
    }
  }
  return out;
}

/**
 * One devpkg run at a time per PackageInstall: a coordination.k8s.io Lease `devpkg-<name>` next
 * to it names the run that is pushing, applying and verifying. A second run finds it and stops
 * with a message naming the first (two runs on one PackageInstall make each other lose). The
 * Lease expires by itself (its duration covers the whole wait), so a run killed hard blocks the
 * next one only until then. Where Leases cannot be written (RBAC), devpkg goes on without one.
 */
import os from 'node:os';
import type { KubeConfig } from '@kubernetes/client-node';
import { DevpkgError } from '../errors.js';
import { describeApiError } from '../verify/verifier.js';

export interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; resourceVersion?: string; labels?: Record<string, string> };
  spec?: { holderIdentity?: string; acquireTime?: string; renewTime?: string; leaseDurationSeconds?: number };
}

export interface RunLeaseOptions {
  /** Who this run is, e.g. "devpkg on host pid 123 (GitHub run 45)". */
  holder: string;
  /** How long the run may hold the PackageInstall (time-out + settle + room for the push). */
  seconds: number;
}

export interface HeldLease {
  namespace: string;
  name: string;
  release(): Promise<void>;
}

export function leaseName(packageInstall: string): string {
  return `devpkg-${packageInstall}`.slice(0, 253);
}

/** This run's identity: host, pid and start time, and the GitHub run when there is one. */
export function runHolder(env: NodeJS.ProcessEnv, now = new Date()): string {
  const gh = env.GITHUB_RUN_ID ? ` (GitHub ${env.GITHUB_REPOSITORY ?? ''} run ${env.GITHUB_RUN_ID}${env.GITHUB_RUN_ATTEMPT ? ` attempt ${env.GITHUB_RUN_ATTEMPT}` : ''})` : '';
  return `devpkg on ${os.hostname()} pid ${process.pid} started ${now.toISOString()}${gh}`;
}

/** Kubernetes MicroTime: RFC 3339 with microseconds. */
function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** Pure: why this Lease stops a run with `holder` at `now`, or undefined when it does not. */
export function leaseConflict(lease: LeaseObject | undefined, holder: string, now: Date): string | undefined {
  const spec = lease?.spec;
  if (!spec?.holderIdentity || spec.holderIdentity === holder) return undefined;
  const since = spec.renewTime ?? spec.acquireTime;
  const until = since && spec.leaseDurationSeconds ? new Date(Date.parse(since) + spec.leaseDurationSeconds * 1000) : undefined;
  if (until && until.getTime() <= now.getTime()) return undefined;
  const ns = lease?.metadata?.namespace ?? '';
  const name = lease?.metadata?.name ?? '';
  return (
    `another devpkg run is working on this PackageInstall: ${spec.holderIdentity}` +
    `${spec.acquireTime ? `, since ${spec.acquireTime}` : ''} (Lease ${ns}/${name}${until ? `, held until ${until.toISOString()}` : ''}). ` +
    `Two runs on one PackageInstall make each other lose: wait for it to finish, or, if that run is gone, ` +
    `delete the Lease: kubectl delete lease -n ${ns} ${name}`
  );
}

const LEASES = { group: 'coordination.k8s.io', version: 'v1', plural: 'leases' };

function codeOf(err: unknown): number | undefined {
  const e = err as { code?: unknown; statusCode?: unknown };
  return typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
}

/**
 * Takes the Lease of a PackageInstall for this run, or throws a DevpkgError naming the run that
 * holds it. Returns undefined when Leases cannot be used there (forbidden): no guard, no failure.
 */
export async function acquireRunLease(
  kc: KubeConfig,
  target: { namespace: string; name: string },
  opts: RunLeaseOptions,
  log: (m: string) => void = () => undefined,
  now: () => Date = () => new Date(),
): Promise<HeldLease | undefined> {
  const k8s = await import('@kubernetes/client-node');
  const api = kc.makeApiClient(k8s.CustomObjectsApi);
  const name = leaseName(target.name);
  const where = { ...LEASES, namespace: target.namespace };
  const body = (rv?: string): LeaseObject => {
    const t = microTime(now());
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: target.namespace, labels: { 'app.kubernetes.io/managed-by': 'devpkg' }, ...(rv ? { resourceVersion: rv } : {}) },
      spec: { holderIdentity: opts.holder, acquireTime: t, renewTime: t, leaseDurationSeconds: Math.ceil(opts.seconds) },
    };
  };
  const release = async (): Promise<void> => {
    try {
      const cur = (await api.getNamespacedCustomObject({ ...where, name })) as LeaseObject;
      if (cur.spec?.holderIdentity !== opts.holder) return; // taken over after it expired: not ours any more
      await api.deleteNamespacedCustomObject({ ...where, name, body: { preconditions: { resourceVersion: cur.metadata?.resourceVersion } } });
    } catch (err) {
      if (codeOf(err) !== 404) log(`could not release Lease ${target.namespace}/${name}: ${describeApiError(err)} (it expires by itself)`);
    }
  };
  const held: HeldLease = { namespace: target.namespace, name, release };
  // No right to read or write Leases there: the run goes on, unguarded, and says so.
  const unguarded = (verb: 'read' | 'write', err: unknown): undefined => {
    log(`cannot ${verb} Leases in ${target.namespace} (${describeApiError(err)}); going on without guarding against a concurrent devpkg run`);
    return undefined;
  };
  // Two attempts: a create or replace that loses a race reads the Lease again and decides anew.
  for (let attempt = 0; attempt < 2; attempt++) {
    let current: LeaseObject | undefined;
    try {
      current = (await api.getNamespacedCustomObject({ ...where, name })) as LeaseObject;
    } catch (err) {
      const code = codeOf(err);
      if (code === 403) return unguarded('read', err);
      if (code !== 404) throw new DevpkgError(`cannot read Lease ${target.namespace}/${name}: ${describeApiError(err)}`, { cause: err });
    }
    const conflict = leaseConflict(current, opts.holder, now());
    if (conflict) throw new DevpkgError(`PackageInstall ${target.namespace}/${target.name}: ${conflict}`);
    try {
      if (current) await api.replaceNamespacedCustomObject({ ...where, name, body: body(current.metadata?.resourceVersion) });
      else await api.createNamespacedCustomObject({ ...where, body: body() });
      return held;
    } catch (err) {
      const code = codeOf(err);
      if (code === 403) return unguarded('write', err);
      if (code !== 409) throw new DevpkgError(`cannot take Lease ${target.namespace}/${name}: ${describeApiError(err)}`, { cause: err });
    }
  }
  throw new DevpkgError(`PackageInstall ${target.namespace}/${target.name}: another devpkg run took Lease ${target.namespace}/${name} at the same moment; run again once it is done`);
}

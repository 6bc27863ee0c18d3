// Cluster API's core manager on the harness (test/harness/capi.sh): start, stop, and what its
// ClusterResourceSet controller leaves on the bootstrap cluster (ResourcesApplied, the
// ClusterResourceSetBinding).
import { readFileSync, readlinkSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { repoRoot, runTool } from './run.js';
import { statusCode } from './kube.js';

export const capiScript = join(repoRoot, 'test', 'harness', 'capi.sh');

/** `capi.sh ARGS...` with the harness exports of process.env. */
export const capi = (...args: string[]) => runTool('bash', [capiScript, ...args], { timeoutMs: 1_500_000, env: process.env });

/** PID of the running manager, or undefined. */
export async function capiPid(): Promise<number | undefined> {
  const r = await runTool('bash', [capiScript, 'pid'], { allowFail: true, env: process.env });
  return r.code === 0 ? Number(r.stdout.trim()) : undefined;
}

/** The manager's log ($DEVPKG_HARNESS_DIR/logs/cluster-api-manager.log). */
export function capiLog(): string {
  try {
    return readFileSync(join(process.env.DEVPKG_HARNESS_DIR!, 'logs', 'cluster-api-manager.log'), 'utf8');
  } catch {
    return '';
  }
}

/** The local addresses (ip:port) of the TCP sockets a process listens on, from /proc. */
export function listening(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      /* closed meanwhile */
    }
  }
  const out: string[] = [];
  for (const file of ['tcp', 'tcp6']) {
    for (const l of readFileSync(`/proc/${pid}/net/${file}`, 'utf8').trim().split('\n').slice(1)) {
      const f = l.trim().split(/\s+/);
      if (f[3] !== '0A' || !inodes.has(f[9]!)) continue; // 0A: LISTEN
      const [hex, port] = f[1]!.split(':');
      const ip =
        hex!.length === 8
          ? [0, 1, 2, 3].map((k) => parseInt(hex!.slice(6 - 2 * k, 8 - 2 * k), 16)).join('.')
          : /^0+$/.test(hex!)
            ? '::'
            : hex === '0000000000000000FFFF00000100007F'
              ? '::ffff:127.0.0.1'
              : hex!;
      out.push(`${ip}:${parseInt(port!, 16)}`);
    }
  }
  return out.sort();
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const CRS = { group: 'addons.cluster.x-k8s.io', version: 'v1beta1', plural: 'clusterresourcesets' };
const BINDING = { group: 'addons.cluster.x-k8s.io', version: 'v1beta1', plural: 'clusterresourcesetbindings' };

/** A ClusterResourceSet as the bootstrap cluster holds it, or undefined. */
export async function readCrs(kc: KubeConfig, namespace: string, name: string): Promise<Obj | undefined> {
  const k8s = await import('@kubernetes/client-node');
  try {
    return (await kc.makeApiClient(k8s.CustomObjectsApi).getNamespacedCustomObject({ ...CRS, namespace, name })) as Obj;
  } catch (e) {
    if (statusCode(e) === 404) return undefined;
    throw e;
  }
}

/** The ClusterResourceSetBinding of a Cluster (named as the Cluster), or undefined. */
export async function readBinding(kc: KubeConfig, namespace: string, cluster: string): Promise<Obj | undefined> {
  const k8s = await import('@kubernetes/client-node');
  try {
    return (await kc.makeApiClient(k8s.CustomObjectsApi).getNamespacedCustomObject({ ...BINDING, namespace, name: cluster })) as Obj;
  } catch (e) {
    if (statusCode(e) === 404) return undefined;
    throw e;
  }
}

/** The ResourcesApplied condition of a ClusterResourceSet. */
export const resourcesApplied = (crs: Obj | undefined): Obj | undefined =>
  (crs?.status?.conditions as Obj[] | undefined)?.find((c) => c.type === 'ResourcesApplied');

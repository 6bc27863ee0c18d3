/**
 * Can this host bootstrap a TKG/TCE 1.x management cluster on docker? Checked before anything is
 * created, so that a run refuses with the reason instead of failing 20 minutes into
 * `management-cluster create`. TCE documents 4 CPUs and 6 GB of memory for a management cluster
 * on docker, and its kind node images run only on cgroup v1 (TCE tracked cgroup v2 as
 * unsupported); GitHub's hosted Linux runners are cgroup v2 (and 2 vCPUs / 7 GB on private
 * repositories). checkHost is pure (table-tested); readHostFacts reads /sys, /proc and docker.
 */
import { access, readFile } from 'node:fs/promises';
import os from 'node:os';
import type { ExecFn } from '../tools/exec.js';

export const HOST_MINIMUM = { cpus: 4, memoryBytes: 6 * 1024 ** 3 } as const;

export interface HostFacts {
  /** 1 or 2; undefined when unknown (not Linux). */
  cgroupVersion?: 1 | 2;
  cpus: number;
  memoryBytes: number;
  /** The docker daemon: reachable, or why not. */
  docker: { ok: true; cgroupVersion?: 1 | 2 } | { ok: false; message: string };
}

const gib = (b: number) => `${(b / 1024 ** 3).toFixed(1)} GiB`;

/** Pure: why this host cannot bootstrap (empty: it can). */
export function checkHost(f: HostFacts): string[] {
  const out: string[] = [];
  if (!f.docker.ok) out.push(`the docker daemon does not answer (${f.docker.message}); bootstrap mode runs the management cluster's nodes as docker containers`);
  // The daemon's own view wins: its containers get the cgroups it manages.
  const cgroup = (f.docker.ok && f.docker.cgroupVersion) || f.cgroupVersion;
  if (cgroup === 2) {
    out.push("cgroup v2: the TKG/TCE 1.x kind node images run only on cgroup v1 (GitHub's hosted Linux runners are cgroup v2); use a runner booted with cgroup v1 (systemd.unified_cgroup_hierarchy=0)");
  }
  if (f.cpus < HOST_MINIMUM.cpus) out.push(`${f.cpus} CPUs: a management cluster on docker needs at least ${HOST_MINIMUM.cpus}`);
  if (f.memoryBytes < HOST_MINIMUM.memoryBytes) out.push(`${gib(f.memoryBytes)} of memory: a management cluster on docker needs at least ${gib(HOST_MINIMUM.memoryBytes)}`);
  return out;
}

/** Pure: MemTotal of /proc/meminfo in bytes (undefined when absent). */
export function memTotal(meminfo: string): number | undefined {
  const kb = /^MemTotal:\s+(\d+)\s*kB/m.exec(meminfo)?.[1];
  return kb ? Number(kb) * 1024 : undefined;
}

/** Pure: `docker info --format '{{.CgroupVersion}}'` output as 1 or 2. */
export function parseCgroupVersion(text: string): 1 | 2 | undefined {
  const v = text.trim();
  return v === '1' ? 1 : v === '2' ? 2 : undefined;
}

/** The refusal for `problems` (checkHost); `skip` names how to skip the check. */
export function hostRefusal(problems: string[], skip: string): string {
  return `this host cannot bootstrap a TKG/TCE 1.x management cluster on docker:\n- ${problems.join('\n- ')}\n(which runners can: docs/workflows.md#which-runners-can-bootstrap; ${skip} skips this check)`;
}

/** The edge: /sys/fs/cgroup (cgroup.controllers exists only on the v2 unified hierarchy), /proc/meminfo, docker info. */
export async function readHostFacts(exec: ExecFn, root = '/'): Promise<HostFacts> {
  let cgroupVersion: 1 | 2 | undefined;
  if (process.platform === 'linux' || root !== '/') {
    cgroupVersion = await access(`${root}sys/fs/cgroup/cgroup.controllers`).then(
      () => 2 as const,
      () => 1 as const,
    );
  }
  const meminfo = await readFile(`${root}proc/meminfo`, 'utf8').catch(() => '');
  let docker: HostFacts['docker'];
  try {
    const r = await exec('docker', ['info', '--format', '{{.CgroupVersion}}'], { allowFail: true, timeoutMs: 30_000 });
    docker = r.code === 0 ? { ok: true, cgroupVersion: parseCgroupVersion(r.stdout) } : { ok: false, message: (r.stderr || r.stdout).trim().split('\n').slice(-2).join(' ') || `docker info exited ${r.code}` };
  } catch (err) {
    docker = { ok: false, message: (err as Error).message };
  }
  return { cgroupVersion, cpus: os.availableParallelism(), memoryBytes: memTotal(meminfo) ?? os.totalmem(), docker };
}

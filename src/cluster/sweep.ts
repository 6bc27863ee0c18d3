/**
 * The I/O around cluster/leftovers.ts: who this run is, the owner file in a temp folder, and the
 * sweep at a kind run's start (find devpkg's things in Docker and in the temp folder, probe the
 * processes that own them, remove what a gone run left, say what was removed and what was not).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { runCleanup } from '../cleanup.js';
import { errorMessage } from '../errors.js';
import type { Docker } from '../tools/docker.js';
import type { ExecFn } from '../tools/exec.js';
import { handCommand } from './cleanup.js';
import { describeOwner, FOLDER_PREFIXES, KIND_CLUSTER_LABEL, keptLine, OWNER_FILE, OWNER_LABELS, ownerFromLabels, ownerLabels, planLeftovers, type Liveness, type RunOwner } from './leftovers.js';

/** /proc/PID/stat: the state letter and the start time (field 22), or undefined off Linux / when gone. */
async function procStat(pid: number): Promise<{ state: string; start: string } | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!text) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return rest[19] ? { state: rest[0]!, start: rest[19] } : undefined;
}

/** Is the pid alive (a zombie is not), and when did it start. */
export async function probeProcess(pid: number): Promise<Liveness> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return { alive: false };
  }
  const st = await procStat(pid);
  if (st?.state === 'Z' || st?.state === 'X') return { alive: false };
  return st ? { alive: true, start: st.start } : { alive: true };
}

/**
 * This run's owner. The CLI owns its things itself; the action's main step hands them to the post
 * step, a later process, so there the owner is the job's runner process (main's parent), which
 * lives until the job ends.
 */
export async function currentOwner(o: { local: boolean; github?: string; now?: Date }): Promise<RunOwner> {
  // A parent of 0 or 1 (main started by docker exec in a job container, or orphaned) owns nothing: then main itself.
  const pid = o.local || process.ppid <= 1 ? process.pid : process.ppid;
  const st = await procStat(pid);
  return { host: os.hostname(), pid, ...(st ? { pidStart: st.start } : {}), startedAt: (o.now ?? new Date()).toISOString(), ...(o.github ? { github: o.github } : {}) };
}

/** Marks a temp folder as this run's (the sweep of a later run reads it). */
export async function writeOwnerFile(dir: string, owner: RunOwner, cluster = ''): Promise<void> {
  await writeFile(join(dir, OWNER_FILE), `${JSON.stringify(ownerLabels(owner, cluster), null, 2)}\n`);
}

async function folders(tmp: string): Promise<Array<{ path: string; owner?: RunOwner }>> {
  const names = await readdir(tmp).catch(() => [] as string[]);
  return Promise.all(
    names
      .filter((n) => FOLDER_PREFIXES.some((p) => n.startsWith(p)))
      .map(async (n) => {
        const path = join(tmp, n);
        const text = await readFile(join(path, OWNER_FILE), 'utf8').catch(() => undefined);
        let owner: RunOwner | undefined;
        try {
          owner = text ? ownerFromLabels(JSON.parse(text) as Record<string, string>) : undefined;
        } catch {
          owner = undefined;
        }
        return { path, ...(owner ? { owner } : {}) };
      }),
  );
}

export interface SweepOptions {
  docker: Docker;
  exec: ExecFn;
  self: RunOwner;
  log: (m: string) => void;
  warning: (m: string) => void;
  /** Where kind mode's temp folders are (default os.tmpdir()). */
  tmp?: string;
}

/**
 * Removes what devpkg runs on this host left whose process is gone, saying what it removed; leaves
 * a live run's things alone; names, with the commands that remove them, what it cannot judge.
 * Never throws: a sweep that fails is a warning (this run's own names never collide with them).
 */
export async function sweepLeftovers(o: SweepOptions): Promise<{ removed: number; kept: number }> {
  try {
    const [networks, containers, nodes, found] = await Promise.all([
      o.docker.labelledNetworks(OWNER_LABELS.cluster),
      o.docker.labelledContainers(OWNER_LABELS.cluster),
      o.docker.labelValues(KIND_CLUSTER_LABEL),
      folders(o.tmp ?? os.tmpdir()),
    ]);
    const things = { networks, containers, nodes: nodes.map((n) => ({ name: n.name, cluster: n.value })), folders: found };
    const pids = new Set([...networks, ...containers].map((x) => ownerFromLabels(x.labels)?.pid).concat(found.map((f) => f.owner?.pid)).filter((p): p is number => p !== undefined));
    const processes = new Map(await Promise.all([...pids].map(async (pid) => [pid, await probeProcess(pid)] as const)));
    const plan = planLeftovers(things, { host: o.self.host, processes });
    const isSelf = (x?: RunOwner) => x?.host === o.self.host && x.pid === o.self.pid && (x.pidStart ?? '') === (o.self.pidStart ?? '');
    const hint = (i: Parameters<typeof handCommand>[0]) => handCommand(i) ?? '';
    let kept = 0;
    for (const g of plan.keep) {
      if (isSelf(g.owner)) continue;
      kept++;
      (g.state === 'running' ? o.log : o.warning)(keptLine(g, hint));
    }
    for (const g of plan.remove) {
      const why = processes.get(g.owner!.pid)?.alive ? `its pid ${g.owner!.pid} now belongs to another process` : 'its process is gone';
      o.log(`removing what a ${describeOwner(g.owner!)} left (${why}): ${g.what.join(', ')}`);
      // runCleanup undoes newest first: the containers go before their network, folders last.
      await runCleanup([...g.items].reverse(), o.exec, { info: o.log, warning: o.warning });
    }
    return { removed: plan.remove.length, kept };
  } catch (err) {
    o.warning(`could not look for what earlier devpkg runs left: ${errorMessage(err)}`);
    return { removed: 0, kept: 0 };
  }
}

/**
 * Cleanup for bootstrap runs from the command line: the CleanupList is mirrored to a state file in
 * the tanzu folder, so `devpkg bootstrap --cleanup` can undo a run that was prepared only, kept,
 * or interrupted. The management cluster is deleted with the same HOME the run used.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CleanupList, describe, runCleanup, type CleanupItem } from '../cleanup.js';
import type { ExecFn } from '../tools/exec.js';
import { tanzuArgs } from '../tools/tanzu.js';

/** The command that deletes a management cluster, with the HOME the run used. */
export function deleteCommandText(tanzuPath: string, clusterName: string, home?: string): string {
  return [...(home ? [`HOME=${home}`] : []), tanzuPath, ...tanzuArgs.delete(clusterName)].join(' ');
}

export function stateFile(tanzuDir: string): string {
  return path.join(tanzuDir, 'tkg', 'devpkg-cleanup.json');
}

/** A CleanupList that mirrors itself to `file` (synchronously enough: each record awaits nothing). */
export function fileCleanupList(file: string, existing: CleanupItem[] = []): CleanupList {
  let pending = Promise.resolve();
  const list = new CleanupList({
    saveState: (_k: string, v: string) => {
      pending = pending.then(() => writeFile(file, v)).catch(() => undefined);
    },
  });
  for (const i of existing) list.record(i);
  (list as CleanupList & { flushed?: () => Promise<void> }).flushed = () => pending;
  return list;
}

export async function flush(list: CleanupList): Promise<void> {
  await (list as CleanupList & { flushed?: () => Promise<void> }).flushed?.();
}

export async function readState(file: string): Promise<CleanupItem[]> {
  try {
    return CleanupList.fromState(await readFile(file, 'utf8'));
  } catch {
    return [];
  }
}

/**
 * Undoes the items newest first; a management cluster is deleted with `home` as HOME (the tanzu
 * CLI's config folder). Removes the state file afterwards.
 */
export async function cleanupBootstrap(items: CleanupItem[], exec: ExecFn, home: string | undefined, log: { info: (m: string) => void; warning: (m: string) => void }, file?: string): Promise<void> {
  for (const item of [...items].reverse()) {
    if (item.kind === 'management-cluster') {
      log.info(`${item.tanzu} ${tanzuArgs.delete(item.name).join(' ')}`);
      try {
        const r = await exec(item.tanzu, tanzuArgs.delete(item.name), { allowFail: true, env: home ? { HOME: home } : {}, timeoutMs: 30 * 60_000 });
        if (r.code !== 0 && !/not found|does not exist|no management cluster/i.test(`${r.stdout}${r.stderr}`)) {
          log.warning(`could not delete management cluster ${item.name}: ${(r.stderr || r.stdout).trim().split('\n').slice(-5).join('\n')}`);
        } else log.info(`cleaned up management cluster ${item.name}`);
      } catch (err) {
        log.warning(`could not delete management cluster ${item.name}: ${(err as Error).message}`);
      }
    } else {
      await runCleanup([item], exec, log);
    }
  }
  if (file) await rm(file, { force: true });
}

/** What takes minutes to delete: left for `devpkg bootstrap --cleanup` after a signal. */
function slowToDelete(item: CleanupItem): boolean {
  return item.kind === 'management-cluster' || item.kind === 'kind-cluster' || item.kind === 'docker-container';
}

/**
 * After SIGINT/SIGTERM: undoes what is quick (the providers folder restored from its backup, temp
 * folders) and keeps the clusters and containers, whose delete takes minutes, in the state file
 * for `devpkg bootstrap --cleanup`. Returns one line per item kept, with its delete command.
 */
export async function cleanupInterrupted(
  items: CleanupItem[],
  exec: ExecFn,
  home: string | undefined,
  log: { info: (m: string) => void; warning: (m: string) => void },
  file: string,
): Promise<string[]> {
  const kept = items.filter(slowToDelete);
  await cleanupBootstrap(items.filter((i) => !slowToDelete(i)), exec, home, log);
  if (kept.length) await writeFile(file, JSON.stringify(kept));
  else await rm(file, { force: true });
  return kept.map((i) =>
    i.kind === 'management-cluster'
      ? `management cluster ${i.name}: ${deleteCommandText(i.tanzu, i.name, home)}`
      : i.kind === 'kind-cluster'
        ? `${describe(i)}: kind delete cluster --name ${i.name}`
        : i.kind === 'docker-container'
          ? `${describe(i)}: docker rm -f ${i.name}`
          : describe(i),
  );
}

// scripts/bundle.mjs builds dist/ in `dist.building-<pid>` beside it and swaps it in at the end. A
// build that was killed (SIGKILL, a closed terminal) leaves its stage behind; the next build removes
// the stages whose process is gone, and leaves a concurrent build's alone.
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Whether process `pid` exists (EPERM: it does, as another user's). */
export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** The stage names among `names` for `out` whose process is gone, with their pids. Pure given `alive`. */
export function staleStages(names, out, self, alive = processAlive) {
  const prefix = `${basename(out)}.building-`;
  return names
    .filter((n) => n.startsWith(prefix) && /^[1-9][0-9]*$/.test(n.slice(prefix.length)))
    .map((name) => ({ name, pid: Number(name.slice(prefix.length)) }))
    .filter(({ pid }) => pid !== self && !alive(pid));
}

/** Removes the stale stages beside `out`, saying which; returns their names. */
export function removeStaleStages(out, self = process.pid, log = (m) => console.error(m)) {
  const stale = staleStages(readdirSync(dirname(out)), out, self);
  for (const { name, pid } of stale) {
    rmSync(join(dirname(out), name), { recursive: true, force: true });
    log(`bundle: removed ${name}, left by a build that was stopped (process ${pid} is gone)`);
  }
  return stale.map((s) => s.name);
}

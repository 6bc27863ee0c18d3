/**
 * scripts/bundle.mjs builds in `dist.building-<pid>` and swaps it in; a build that was killed left
 * its stage behind (three were found beside a working copy's dist/). The next build removes the
 * stages whose process is gone, and only those.
 */
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeStaleStages, staleStages as stale } from '../../scripts/stale-stages.mjs';

describe('the stages a killed build left', () => {
  test('only a gone process\'s stage of this output, never the running build\'s own', () => {
    const alive = (pid: number): boolean => pid === 200;
    expect(
      stale(['dist', 'dist.building-100', 'dist.building-200', 'dist.building-300', 'dist.building-', 'dist.building-0', 'dist.building-12x', 'other.building-100', 'xdist.building-100'], '/w/dist', 300, alive),
    ).toEqual([{ name: 'dist.building-100', pid: 100 }]);
  });

  test('removed from the folder, saying which; a live process\'s stays', () => {
    const dir = mkdtempSync(join(tmpdir(), 'devpkg-stages-'));
    try {
      // A process that has exited: its pid is gone.
      const gone = spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim();
      for (const n of ['dist', `dist.building-${gone}`, `dist.building-${process.pid}`, 'notes']) mkdirSync(join(dir, n));
      const said: string[] = [];
      expect(removeStaleStages(join(dir, 'dist'), 1, (m) => said.push(m))).toEqual([`dist.building-${gone}`]);
      expect(readdirSync(dir).sort()).toEqual(['dist', `dist.building-${process.pid}`, 'notes'].sort());
      expect(said).toEqual([`bundle: removed dist.building-${gone}, left by a build that was stopped (process ${gone} is gone)`]);
      expect(existsSync(join(dir, 'dist'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

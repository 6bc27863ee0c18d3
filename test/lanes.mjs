// The integration and workflow tiers run two test files at once (scripts/test-lanes.mjs), never
// two that would disturb each other. What a file needs of what the tier shares, and whether it
// needs it alone, is declared here, once; the runner starts the next file whose needs are free.
// Most of a kind file's time is a cluster coming up, which leaves a core idle (about 50% of two
// cores busy); the second file uses it.
//
// What is shared:
// - `engine`, the kind engine (test/harness/kind.sh). `alone` for the files that check the engine
//   as a whole before and after their runs (devpkg's clusters, containers, networks, volumes) or
//   stop or kill it; `shared` for the files whose checks name only their own clusters. The runner
//   checks the engine whole before and after the tier; in the workflow tier (no global setup) it
//   also brings the engine up before the files and stops it after them.
// - `apiserver`, the integration harness's control plane (kube-apiserver, kapp-controller on it).
//   `alone` for the files that restart kube-apiserver; every other integration file shares it
//   unless it declares `apiserver: null` (it never talks to it).
// - `controllers`, Cluster API's manager and the stand-in TKG controllers on the control plane:
//   `alone` for the files that start and stop them or count them.
// test/unit/test-lanes.test.ts checks these against what the files do.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A file's needs, by path from the repository's root, in the order the runner offers them: the
 * kind files that share the engine first (two of them at once), then the ones that need it alone
 * (each beside a file that does not use it), longest first; then the control plane's.
 */
export const NEEDS = {
  'test/integration/kind-faults.test.ts': { engine: 'shared', apiserver: null },
  'test/integration/bootstrap-kind.test.ts': { engine: 'shared', controllers: 'alone' },
  'test/integration/kind-layouts.test.ts': { engine: 'shared', apiserver: null },
  'test/integration/kind-multinode.test.ts': { engine: 'shared', apiserver: null },
  'test/integration/kind-mode.test.ts': { engine: 'alone', apiserver: null },
  'test/integration/kind-concurrency.test.ts': { engine: 'alone', apiserver: null },
  'test/integration/kind-harness.test.ts': { engine: 'alone', apiserver: null },
  'test/integration/try-kind-mode.test.ts': { engine: 'alone', apiserver: null },
  'test/integration/bootstrap.test.ts': { controllers: 'alone' },
  'test/integration/verify.test.ts': { apiserver: 'alone' },
  'test/integration/harness.test.ts': { apiserver: 'alone' },
  'test/integration/capi-harness.test.ts': { controllers: 'alone' },
  'test/integration/tkg-harness.test.ts': { controllers: 'alone' },
  'test/workflows/kind.test.ts': { engine: 'shared' },
  'test/workflows/bootstrap.test.ts': { engine: 'shared' },
};

/** What a file of the tier needs when NEEDS does not name it. */
export const TIER_DEFAULT = {
  integration: { apiserver: 'shared' },
  workflows: {},
};

/** The file's needs: the tier's default, then its own (a `null` drops a default). Pure. */
export function needsOf(file, tier, needs = NEEDS) {
  const merged = { ...TIER_DEFAULT[tier], ...(needs[file] ?? {}) };
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v === 'alone' || v === 'shared'));
}

/** Whether a file with `needs` may start beside the running files' needs. Pure. */
export function canStart(needs, running) {
  return Object.entries(needs).every(([what, how]) =>
    running.every((r) => !(what in r) || (how === 'shared' && r[what] === 'shared')),
  );
}

/**
 * The tier's files in the order they are offered: NEEDS's order first, then the rest by name.
 * A NEEDS entry of this tier's folder that is not among the files is an error naming it (a renamed
 * file would otherwise silently lose what it needs alone). Pure.
 */
export function queueOf(files, folder, needs = NEEDS) {
  const named = Object.keys(needs).filter((f) => f.startsWith(`${folder}/`));
  const missing = named.filter((f) => !files.includes(f));
  if (missing.length > 0) {
    throw new Error(`test/lanes.mjs names ${missing.join(', ')}, but ${missing.length === 1 ? 'it is' : 'they are'} not a test file of ${folder}/: update NEEDS`);
  }
  return [...named, ...files.filter((f) => !named.includes(f)).sort()];
}

/** The first queued file that may start beside the running ones, or undefined. Pure. */
export function nextToStart(queue, running, tier, needs = NEEDS) {
  return queue.find((f) => canStart(needsOf(f, tier, needs), running.map((r) => needsOf(r, tier, needs))));
}

/** The `*.test.ts` files under `folder` (relative to `root`), as paths from `root`, sorted. */
export function testFilesOf(root, folder) {
  return readdirSync(join(root, folder), { recursive: true })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(folder, f))
    .sort();
}

/**
 * Runs a tier's files (`run`) between two looks at the whole kind engine (`look`: what is on it,
 * undefined when it is not up). Anything there before fails the tier without running its files
 * (their checks of what they leave would see it); anything left after fails it, by name.
 */
export async function betweenEngineChecks(look, run) {
  const there = look();
  if (there?.length) throw new Error(`the kind engine already holds ${there.join(', ')} before the tier: its files' checks of what they leave would see them. Remove them (test/harness/kind.sh down) and run again`);
  await run();
  const left = look();
  if (left?.length) throw new Error(`left on the kind engine by the tier's files (removed with the engine): ${left.join(', ')}`);
}

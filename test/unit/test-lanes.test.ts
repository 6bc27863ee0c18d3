// The integration and workflow tiers run two test files at once (scripts/test-lanes.mjs), started
// by what each needs of the kind engine, the control plane and its controllers (test/lanes.mjs).
// Checked here: the rules that decide what may start together, and the declarations against what
// the files do (a file that uses the kind engine says so; one that restarts kube-apiserver, or
// starts, stops or counts the controllers on it, needs them alone; one said never to talk to the
// control plane does not).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
// @ts-expect-error: a plain ESM module of the test tree, no types
import { betweenEngineChecks, canStart, needsOf, nextToStart, NEEDS, queueOf, testFilesOf } from '../lanes.mjs';
import { stopsAtEnd, stopsAtEndHere } from '../integration/helpers/kind.js';

type Needs = Record<string, 'alone' | 'shared'>;
const root = path.resolve('.');
const filesOf = (folder: string): string[] => testFilesOf(root, folder) as string[];
const read = (f: string) => readFileSync(path.join(root, f), 'utf8');

/** Evidence that a file uses the kind engine: the kind harness's helpers or its script. */
const USES_KIND_ENGINE = /helpers\/kind(\.js)?'|'kind\.sh'/;
/** Evidence that a file looks at the engine as a whole (devpkg's names on it before and after, its networks) or stops it. */
const SEES_WHOLE_ENGINE = /RUN_NAME|engineState\(|kindHarnessDown\(|dockerd\.pid|leftovers\(kh(, \/\.\/)?\)/;
/** Evidence that a file restarts kube-apiserver. */
const RESTARTS_APISERVER = /restartApiserver\(/;
/** Evidence that a file starts, stops or counts the controllers on the control plane (Cluster API, the stand-in TKG ones, the latter also through the stand-in tanzu CLI's create). */
const MOVES_CONTROLLERS = /capi\('(up|down)'\)|tkgPids\(|tkg\('(stop|up|down)'\)/;
/** Evidence that a file talks to the integration harness's control plane. */
const USES_CONTROL_PLANE = /harnessKubeConfig\(|harnessEnv\(|KAPPCTRL_NAMESPACE|process\.env\.KUBECONFIG|runCliIn\(|restartApiserver\(|capi\(|tkg\(/;

describe.each([
  ['integration', 'test/integration'],
  ['workflows', 'test/workflows'],
])('%s', (tier, folder) => {
  const files = filesOf(folder);
  const needs = (f: string) => needsOf(f, tier) as Needs;

  test('the queue holds every file once, the ones NEEDS names first', () => {
    const queue = queueOf(files, folder) as string[];
    expect([...queue].sort()).toEqual(files);
    expect(queue.slice(0, Object.keys(NEEDS).filter((f) => f.startsWith(`${folder}/`)).length)).toEqual(Object.keys(NEEDS).filter((f) => f.startsWith(`${folder}/`)));
  });

  test('the files that use the kind engine are the ones that say so; the ones that see it whole or stop it need it alone', () => {
    expect(files.filter((f) => USES_KIND_ENGINE.test(read(f)))).toEqual(files.filter((f) => needs(f).engine));
    const whole = files.filter((f) => SEES_WHOLE_ENGINE.test(read(f)));
    // The integration tier has files that see the engine whole; in the workflow tier both kind files share it.
    expect(whole.length > 0).toBe(tier === 'integration');
    expect(files.filter((f) => needs(f).engine === 'alone')).toEqual(whole);
  });

  if (tier === 'integration') {
    test('the files that restart kube-apiserver need it alone; the ones that move its controllers need them alone', () => {
      const restarts = files.filter((f) => RESTARTS_APISERVER.test(read(f)));
      expect(restarts).toEqual(expect.arrayContaining(['test/integration/harness.test.ts', 'test/integration/verify.test.ts']));
      expect(files.filter((f) => needs(f).apiserver === 'alone')).toEqual(restarts);
      const moves = files.filter((f) => MOVES_CONTROLLERS.test(read(f)));
      expect(moves).toEqual(expect.arrayContaining(['test/integration/bootstrap.test.ts', 'test/integration/bootstrap-kind.test.ts', 'test/integration/capi-harness.test.ts', 'test/integration/tkg-harness.test.ts']));
      expect(files.filter((f) => needs(f).controllers === 'alone')).toEqual(moves);
    });

    test('a file said never to talk to the control plane does not', () => {
      const without = files.filter((f) => !needs(f).apiserver);
      expect(without.length).toBeGreaterThan(0);
      expect(without.filter((f) => USES_CONTROL_PLANE.test(read(f)))).toEqual([]);
    });
  }
});

test('the runner checks the kind engine whole before and after a tier; the workflow tier owns the engine and the control plane, and its files never stop them when run by it', () => {
  // The runner runs its queue through betweenEngineChecks with its look at the engine (tested below).
  expect(read('scripts/test-lanes.mjs')).toMatch(/await betweenEngineChecks\(onEngine, async \(\) => \{\n\s+results = await runQueue\(/);
  expect(stopsAtEnd({ startedHere: true, lane: undefined })).toBe(true);
  expect(stopsAtEnd({ startedHere: true, lane: 'a' })).toBe(false);
  expect(stopsAtEnd({ startedHere: false, lane: undefined })).toBe(false);
  // stopsAtEndHere reads the lane the runner gives the file's process.
  const lane = process.env.DEVPKG_HARNESS_LANE;
  try {
    process.env.DEVPKG_HARNESS_LANE = 'b';
    expect(stopsAtEndHere(true)).toBe(false);
    process.env.DEVPKG_HARNESS_LANE = '';
    expect(stopsAtEndHere(true)).toBe(true);
  } finally {
    if (lane === undefined) delete process.env.DEVPKG_HARNESS_LANE;
    else process.env.DEVPKG_HARNESS_LANE = lane;
  }
  for (const f of filesOf('test/workflows').filter((x) => needsOf(x, 'workflows').engine === 'shared')) {
    // The engine only through kindHarnessForFile's release; the control plane only where stopsAtEnd says so.
    const lines = read(f).split('\n');
    const stops = lines.filter((l) => /kindHarnessDown\(|controlplaneScript, 'down'\]/.test(l) && !/^\s*if \(stopsAtEndHere\(/.test(l));
    expect({ f, stops }).toEqual({ f, stops: [] });
  }
});

test('the tier\'s files run between two looks at the whole engine: something there before stops them from running, something left after fails the tier by name', async () => {
  const looks = (...seen: Array<string[] | undefined>) => () => seen.shift();
  let ran = 0;
  const run = async () => void ran++;
  await expect(betweenEngineChecks(looks(['cluster devpkg-old']), run)).rejects.toThrow(/already holds cluster devpkg-old before the tier/);
  expect(ran).toBe(0);
  await expect(betweenEngineChecks(looks([], ['container devpkg-x-registry', 'cluster devpkg-x']), run)).rejects.toThrow(/left on the kind engine by the tier's files \(removed with the engine\): container devpkg-x-registry, cluster devpkg-x$/);
  expect(ran).toBe(1);
  await betweenEngineChecks(looks([], []), run);
  // The engine not up (a tier none of whose files uses it): nothing to look at.
  await betweenEngineChecks(looks(undefined, undefined), run);
  expect(ran).toBe(3);
});

test('what may start together: alone excludes any other user of the thing, shared only an alone one', () => {
  expect(canStart({ engine: 'shared' }, [{ engine: 'shared' }, { apiserver: 'alone' }])).toBe(true);
  expect(canStart({ engine: 'shared' }, [{ engine: 'alone' }])).toBe(false);
  expect(canStart({ engine: 'alone' }, [{ engine: 'shared' }])).toBe(false);
  expect(canStart({ apiserver: 'alone' }, [{ engine: 'alone' }])).toBe(true);
  expect(canStart({ apiserver: 'shared', controllers: 'alone' }, [{ apiserver: 'shared' }])).toBe(true);
  expect(canStart({ apiserver: 'alone' }, [{ apiserver: 'shared' }])).toBe(false);
  expect(canStart({}, [{ engine: 'alone' }, { apiserver: 'alone' }])).toBe(true);
  expect(canStart({ engine: 'alone' }, [])).toBe(true);
});

test('the next file is the first queued one free to start: a kind file waits for one that has the engine alone, a control-plane user for a restart', () => {
  const queue = queueOf(filesOf('test/integration'), 'test/integration') as string[];
  expect(nextToStart(queue, [], 'integration')).toBe(queue[0]);
  // kind-mode has the engine alone: no other kind file, nor any user of the control plane while verify restarts it.
  const besideKindMode = nextToStart(queue, ['test/integration/kind-mode.test.ts'], 'integration') as string;
  expect(needsOf(besideKindMode, 'integration').engine).toBeUndefined();
  expect(besideKindMode).toBe('test/integration/bootstrap.test.ts');
  const besideVerify = nextToStart(queue, ['test/integration/verify.test.ts'], 'integration') as string;
  expect(needsOf(besideVerify, 'integration')).toEqual({ engine: 'shared' });
  expect(nextToStart(['test/integration/edge.test.ts'], ['test/integration/verify.test.ts'], 'integration')).toBeUndefined();
  expect(nextToStart(['test/integration/capi-harness.test.ts'], ['test/integration/bootstrap-kind.test.ts'], 'integration')).toBeUndefined();
  expect(nextToStart(['test/integration/kind-layouts.test.ts'], ['test/integration/kind-faults.test.ts'], 'integration')).toBe('test/integration/kind-layouts.test.ts');
  // The tier's default: an integration file NEEDS does not name shares the control plane; a workflow file needs nothing.
  expect(needsOf('test/integration/edge.test.ts', 'integration')).toEqual({ apiserver: 'shared' });
  expect(needsOf('test/workflows/examples.test.ts', 'workflows')).toEqual({});
});

test('a NEEDS entry that is not a file of the tier is refused by name', () => {
  const needs = { 'test/integration/gone.test.ts': { engine: 'alone' }, 'test/workflows/x.test.ts': {} };
  expect(() => queueOf(['test/integration/a.test.ts'], 'test/integration', needs)).toThrow(
    'test/lanes.mjs names test/integration/gone.test.ts, but it is not a test file of test/integration/: update NEEDS',
  );
  expect(queueOf(['test/integration/b.test.ts', 'test/integration/a.test.ts'], 'test/integration', { 'test/integration/b.test.ts': {} })).toEqual([
    'test/integration/b.test.ts',
    'test/integration/a.test.ts',
  ]);
});

test('scripts/test-lanes.mjs refuses a tier without lanes, and a DEVPKG_LANES_ONLY that matches nothing, by name', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'test-lanes.mjs'), 'unit'], { encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('test-lanes: unit is not a tier with lanes; use integration or workflows');
  const none = spawnSync(process.execPath, [path.join(root, 'scripts', 'test-lanes.mjs'), 'workflows'], { encoding: 'utf8', env: { ...process.env, DEVPKG_LANES_ONLY: 'no-such-file' } });
  expect(none.status).toBe(2);
  expect(none.stderr).toContain("test-lanes: DEVPKG_LANES_ONLY=no-such-file matches none of test/workflows/'s test files");
});

import { checkGraph, runSteps, type ScheduleResult, type Step } from './schedule.js';

/** Fake steps held by deferred promises: a test finishes or fails each one when it wants. */
function fakeSteps(spec: ReadonlyArray<readonly [name: string, needs: readonly string[], pool?: string]>) {
  const started: string[] = [];
  const open = new Map<string, { resolve: (v: unknown) => void; reject: (e: unknown) => void }>();
  const seen = new Map<string, unknown>();
  const steps: Step[] = spec.map(([name, needs, pool]) => ({
    name,
    needs,
    ...(pool ? { pool } : {}),
    run: (value) => {
      started.push(name);
      seen.set(name, needs.map((n) => value(n)));
      return new Promise((resolve, reject) => open.set(name, { resolve, reject }));
    },
  }));
  // Each fake step's promise settles in a microtask; a macrotask turn lets the scheduler react.
  const settle = () => new Promise<void>((r) => setImmediate(r));
  return {
    steps,
    started,
    seen,
    running: () => [...open.keys()].sort(),
    async finish(name: string) {
      const d = open.get(name);
      if (!d) throw new Error(`test: ${name} is not running`);
      open.delete(name);
      d.resolve(`value of ${name}`);
      await settle();
    },
    async fail(name: string) {
      const d = open.get(name)!;
      open.delete(name);
      d.reject(new Error(`${name} broke`));
      await settle();
    },
    settle,
  };
}

// The kind mode's shape, small: registry and cluster at once, builds bounded by a pool of 2.
const GRAPH = [
  ['registry', []],
  ['cluster', []],
  ['build a', [], 'cpu'],
  ['build b', [], 'cpu'],
  ['build c', [], 'cpu'],
  ['push a', ['registry', 'build a'], 'cpu'],
  ['kapp', ['cluster']],
  ['install a', ['kapp', 'push a']],
] as const;

type Action = readonly ['finish' | 'fail', string];

describe('runSteps: each step starts when its needs are done, within its pool', () => {
  test.each<[string, Action[], string[][]]>([
    [
      'roots at once, the pool bounds the builds, a step waits for its last need',
      [
        ['finish', 'build a'],
        ['finish', 'registry'],
        ['finish', 'cluster'],
        ['finish', 'kapp'],
        ['finish', 'build b'],
        ['finish', 'push a'],
      ],
      [
        ['build a', 'build b', 'cluster', 'registry'],
        ['build b', 'build c', 'cluster', 'registry'],
        // push a is ready but the cpu pool is full.
        ['build b', 'build c', 'cluster'],
        ['build b', 'build c', 'kapp'],
        ['build b', 'build c'],
        ['build c', 'push a'],
        ['build c', 'install a'],
      ],
    ],
    [
      'a push held for a free slot starts when a build finishes',
      [
        ['finish', 'registry'],
        ['finish', 'build a'],
        ['finish', 'build b'],
      ],
      [
        ['build a', 'build b', 'cluster', 'registry'],
        ['build a', 'build b', 'cluster'],
        // build c was given first, so it takes the slot before push a.
        ['build b', 'build c', 'cluster'],
        ['build c', 'cluster', 'push a'],
      ],
    ],
  ])('%s', async (_what, actions, runningAfter) => {
    const f = fakeSteps(GRAPH);
    const done = runSteps(f.steps, { limits: { cpu: 2 } });
    await f.settle();
    expect(f.running()).toEqual(runningAfter[0]);
    for (const [i, [what, name]] of actions.entries()) {
      await f[what](name);
      expect(f.running()).toEqual(runningAfter[i + 1]);
    }
    while (f.running().length > 0) await f.finish(f.running()[0]!);
    const r = await done;
    expect(r.failed).toBeUndefined();
    expect(r.timeline.every((t) => t.state === 'done' && t.startedAt && t.finishedAt)).toBe(true);
  });

  test('what each step waited on: its need that finished last, and a pool slot when it queued', async () => {
    const f = fakeSteps(GRAPH);
    const done = runSteps(f.steps, { limits: { cpu: 2 } });
    await f.settle();
    for (const name of ['registry', 'build a', 'build b', 'cluster', 'build c', 'push a', 'kapp', 'install a']) await f.finish(name);
    const r = await done;
    expect(Object.fromEntries(r.timeline.map((t) => [t.name, t.waitedOn]))).toEqual({
      registry: [],
      cluster: [],
      'build a': [],
      'build b': [],
      'build c': ['a free cpu slot'],
      'push a': ['build a', 'a free cpu slot'],
      kapp: ['cluster'],
      'install a': ['kapp'],
    });
    // A step is handed what its needs returned.
    expect(f.seen.get('install a')).toEqual(['value of kapp', 'value of push a']);
    expect(r.values.get('install a')).toBe('value of install a');
  });

  test('no limit for a pool: its steps all start at once', async () => {
    const f = fakeSteps(GRAPH);
    const done = runSteps(f.steps);
    await f.settle();
    expect(f.running()).toEqual(['build a', 'build b', 'build c', 'cluster', 'registry']);
    for (const name of ['registry', 'build a', 'cluster', 'build b', 'build c', 'push a', 'kapp', 'install a']) await f.finish(name);
    await done;
  });
});

describe('runSteps: the first failure', () => {
  test('starts nothing more, awaits what runs, names the step; the rest cancelled', async () => {
    const f = fakeSteps(GRAPH);
    const done = runSteps(f.steps, { limits: { cpu: 2 } });
    let returned: ScheduleResult | undefined;
    void done.then((r) => (returned = r));
    await f.settle();
    await f.finish('registry');
    await f.fail('cluster');
    // build a finishing frees a slot, but nothing new starts after a failure.
    await f.finish('build a');
    expect(f.running()).toEqual(['build b']);
    expect(returned).toBeUndefined();
    await f.finish('build b');
    const r = await done;
    expect(r.failed?.step).toBe('cluster');
    expect((r.failed?.error as Error).message).toBe('cluster broke');
    expect(Object.fromEntries(r.timeline.map((t) => [t.name, t.state]))).toEqual({
      registry: 'done',
      cluster: 'failed',
      'build a': 'done',
      'build b': 'done',
      'build c': 'cancelled',
      'push a': 'cancelled',
      kapp: 'cancelled',
      'install a': 'cancelled',
    });
    expect(r.timeline.find((t) => t.name === 'cluster')?.error).toBe('cluster broke');
    expect(r.timeline.find((t) => t.name === 'kapp')?.startedAt).toBeUndefined();
    expect(f.started).not.toContain('build c');
  });

  test('a step that throws at once fails like one that rejects', async () => {
    const r = await runSteps([
      { name: 'a', run: () => { throw new Error('sync'); } },
      { name: 'b', needs: ['a'], run: async () => 1 },
    ]);
    expect(r.failed?.step).toBe('a');
    expect(r.timeline.map((t) => t.state)).toEqual(['failed', 'cancelled']);
  });

  test('an abort starts nothing more and says so', async () => {
    const f = fakeSteps([['a', []], ['b', ['a']]]);
    const ac = new AbortController();
    const done = runSteps(f.steps, { signal: ac.signal });
    await f.settle();
    ac.abort();
    await f.finish('a');
    const r = await done;
    expect(r.aborted).toBe(true);
    expect(r.failed).toBeUndefined();
    expect(f.started).toEqual(['a']);
  });

  test('a step may read only what it needs', async () => {
    const r = await runSteps([
      { name: 'a', run: async () => 1 },
      { name: 'b', run: async (value) => value('a') },
    ]);
    expect((r.failed?.error as Error).message).toBe('step "b" asked for the value of "a", which it does not need');
  });
});

describe('checkGraph', () => {
  const s = (name: string, needs: string[] = []): Step => ({ name, needs, run: async () => undefined });
  test.each([
    ['duplicate', [s('a'), s('a')], 'step graph: two steps are named "a"'],
    ['unknown need', [s('a', ['x'])], 'step graph: step "a" needs "x", which is not a step'],
    ['cycle', [s('a', ['c']), s('b', ['a']), s('c', ['b'])], 'step graph: a cycle: a -> c -> b -> a'],
  ])('%s', (_what, steps, message) => {
    expect(() => checkGraph(steps)).toThrow(message);
  });
  test('a valid graph passes', () => expect(() => checkGraph([s('a'), s('b', ['a'])])).not.toThrow());
});

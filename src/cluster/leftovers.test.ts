import { describe, expect, test } from '@jest/globals';
import { handCommand } from './cleanup.js';
import { keptLine, ownerFromLabels, ownerLabels, ownerState, planLeftovers, type FoundThings, type Liveness, type RunOwner } from './leftovers.js';

const HOST = 'runner-1';
const owner = (pid: number, more: Partial<RunOwner> = {}): RunOwner => ({ host: HOST, pid, pidStart: `${pid}00`, startedAt: '2026-12-05T08:00:00.000Z', ...more });

describe('owner labels', () => {
  test('round trip, with the GitHub run and --keep', () => {
    const o = owner(41, { github: 'acme/pkgs run 7 attempt 2', keep: true });
    const labels = ownerLabels(o, 'devpkg-a-1');
    expect(labels).toEqual({
      'dev.devpkg.run.host': HOST,
      'dev.devpkg.run.pid': '41',
      'dev.devpkg.run.pid-start': '4100',
      'dev.devpkg.run.started': '2026-12-05T08:00:00.000Z',
      'dev.devpkg.run.github': 'acme/pkgs run 7 attempt 2',
      'dev.devpkg.run.keep': 'true',
      'dev.devpkg.cluster': 'devpkg-a-1',
    });
    expect(ownerFromLabels(labels)).toEqual(o);
  });
  test.each([[{}], [{ 'dev.devpkg.run.host': HOST }], [{ 'dev.devpkg.run.host': HOST, 'dev.devpkg.run.pid': 'x' }], [{ 'dev.devpkg.run.pid': '4' }]])('no owner in %j', (labels) =>
    expect(ownerFromLabels(labels)).toBeUndefined(),
  );
});

describe('ownerState', () => {
  test.each<[string, RunOwner | undefined, Liveness | undefined, string]>([
    ['its process is gone', owner(41), { alive: false }, 'gone'],
    ['never probed counts as gone', owner(41), undefined, 'gone'],
    ['alive, same start', owner(41), { alive: true, start: '4100' }, 'running'],
    // The pid now belongs to a process that started at another time.
    ['pid reused', owner(41), { alive: true, start: '999' }, 'gone'],
    // No start time to compare (not Linux): alive is running, never removed.
    ['alive, start unknown', owner(41), { alive: true }, 'running'],
    ['recorded without a start', owner(41, { pidStart: undefined }), { alive: true, start: '999' }, 'running'],
    ['another host', owner(41, { host: 'runner-2' }), { alive: false }, 'elsewhere'],
    ['kept with --keep', owner(41, { keep: true }), { alive: false }, 'kept'],
    ['no record', undefined, undefined, 'unknown'],
  ])('%s', (_why, o, probe, want) => expect(ownerState(o, HOST, probe)).toBe(want));
});

/** The things one run leaves: its network and registry labelled, its nodes named by kind, its folders. */
function runThings(cluster: string, o: RunOwner, nodes = [`${cluster}-control-plane`]): FoundThings {
  return {
    networks: [{ name: cluster, labels: ownerLabels(o, cluster) }],
    containers: [{ name: `${cluster}-registry`, labels: ownerLabels(o, cluster) }],
    nodes: nodes.map((name) => ({ name, cluster })),
    folders: [
      { path: `/tmp/devpkg-kind-cluster-${cluster}`, owner: o },
      { path: `/tmp/devpkg-kind-cli-${cluster}`, owner: { ...o, startedAt: '2026-12-05T08:00:01.000Z' } },
    ],
  };
}
const merge = (...all: FoundThings[]): FoundThings => ({
  networks: all.flatMap((f) => f.networks),
  containers: all.flatMap((f) => f.containers),
  nodes: all.flatMap((f) => f.nodes),
  folders: all.flatMap((f) => f.folders),
});

describe('planLeftovers', () => {
  test("a gone run's things, one group, in the order they are removed: nodes, registry, network, folders", () => {
    const plan = planLeftovers(runThings('devpkg-a-1', owner(41), ['devpkg-a-1-worker', 'devpkg-a-1-control-plane']), { host: HOST, processes: new Map([[41, { alive: false }]]) });
    expect(plan.keep).toEqual([]);
    expect(plan.remove).toHaveLength(1);
    const g = plan.remove[0]!;
    expect(g.cluster).toBe('devpkg-a-1');
    expect(g.items).toEqual([
      { kind: 'docker-container', name: 'devpkg-a-1-control-plane' },
      { kind: 'docker-container', name: 'devpkg-a-1-worker' },
      { kind: 'docker-container', name: 'devpkg-a-1-registry' },
      { kind: 'docker-network', name: 'devpkg-a-1' },
      { kind: 'temp-dir', path: '/tmp/devpkg-kind-cli-devpkg-a-1' },
      { kind: 'temp-dir', path: '/tmp/devpkg-kind-cluster-devpkg-a-1' },
    ]);
    expect(g.what).toEqual([
      'kind cluster devpkg-a-1 (nodes devpkg-a-1-control-plane, devpkg-a-1-worker)',
      'container devpkg-a-1-registry',
      'network devpkg-a-1',
      'folder /tmp/devpkg-kind-cli-devpkg-a-1',
      'folder /tmp/devpkg-kind-cluster-devpkg-a-1',
    ]);
  });

  test("two runs at once: the live one's things are left alone, the gone one's removed", () => {
    const found = merge(runThings('devpkg-a-1', owner(41)), runThings('devpkg-b-1', owner(42)));
    const plan = planLeftovers(found, { host: HOST, processes: new Map<number, Liveness>([[41, { alive: true, start: '4100' }], [42, { alive: false }]]) });
    expect(plan.remove.map((g) => [g.cluster, g.owner?.pid])).toEqual([['devpkg-b-1', 42]]);
    expect(plan.keep.map((g) => [g.cluster, g.state])).toEqual([['devpkg-a-1', 'running']]);
    expect(plan.remove[0]!.items.every((i) => JSON.stringify(i).includes('devpkg-b-1'))).toBe(true);
  });

  test('a killed run before its cluster existed: the network and registry only', () => {
    const t = runThings('devpkg-c-1', owner(43), []);
    const plan = planLeftovers(t, { host: HOST, processes: new Map([[43, { alive: false }]]) });
    expect(plan.remove[0]!.what).toEqual(['container devpkg-c-1-registry', 'network devpkg-c-1', 'folder /tmp/devpkg-kind-cli-devpkg-c-1', 'folder /tmp/devpkg-kind-cluster-devpkg-c-1']);
  });

  test("a devpkg-* cluster with no owner record is named, never removed; other kind clusters are not devpkg's", () => {
    const found: FoundThings = {
      networks: [],
      containers: [],
      nodes: [
        { name: 'devpkg-old-1-control-plane', cluster: 'devpkg-old-1' },
        { name: 'kind-control-plane', cluster: 'kind' },
      ],
      folders: [],
    };
    const plan = planLeftovers(found, { host: HOST, processes: new Map() });
    expect(plan.remove).toEqual([]);
    expect(plan.keep).toEqual([{ state: 'unknown', cluster: 'devpkg-old-1', items: [{ kind: 'docker-container', name: 'devpkg-old-1-control-plane' }], what: ['kind cluster devpkg-old-1 (node devpkg-old-1-control-plane)'] }]);
    expect(keptLine(plan.keep[0]!, (i) => handCommand(i) ?? '')).toBe(
      'left alone: kind cluster devpkg-old-1 (node devpkg-old-1-control-plane), named like devpkg\'s but with no record of the run that made it (an older devpkg, or made by hand); if no run uses it, remove it with: docker rm -f -v devpkg-old-1-control-plane',
    );
  });

  test("another host's things (a shared Docker engine) and kept ones are left alone and named with their commands", () => {
    const found = merge(runThings('devpkg-d-1', owner(44, { host: 'runner-2' })), runThings('devpkg-e-1', owner(45, { keep: true })));
    const plan = planLeftovers(found, { host: HOST, processes: new Map([[44, { alive: false }], [45, { alive: false }]]) });
    expect(plan.remove).toEqual([]);
    const lines = plan.keep.map((g) => keptLine(g, (i) => handCommand(i) ?? ''));
    expect(lines[0]).toMatch(/^left alone: kind cluster devpkg-d-1 .*made by a devpkg run on runner-2 pid 44 .*on another host .*remove them with: docker rm -f -v devpkg-d-1-control-plane; docker rm -f -v devpkg-d-1-registry; docker network rm devpkg-d-1; rm -rf/);
    expect(lines[1]).toMatch(/^left alone: kind cluster devpkg-e-1 .*kept by a devpkg run on runner-1 pid 45 .*\(--keep\); delete them with: docker rm -f -v devpkg-e-1-control-plane/);
  });

  test('a folder without an owner file is never touched (a live run between mkdtemp and the write)', () => {
    const plan = planLeftovers({ networks: [], containers: [], nodes: [], folders: [{ path: '/tmp/devpkg-kind-cli-x' }] }, { host: HOST, processes: new Map() });
    expect(plan).toEqual({ remove: [], keep: [] });
  });

  test('a reused pid: the run is gone though the pid is alive', () => {
    const plan = planLeftovers(runThings('devpkg-f-1', owner(46)), { host: HOST, processes: new Map([[46, { alive: true, start: '1' }]]) });
    expect(plan.remove.map((g) => g.cluster)).toEqual(['devpkg-f-1']);
  });
});

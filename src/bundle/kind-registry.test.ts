import { CleanupList } from '../cleanup.js';
import { Docker } from '../tools/docker.js';
import type { ExecFn } from '../tools/exec.js';
import { clusterHostFor, startKindRegistry } from './kind-registry.js';

function inspect(ip: string, running = true) {
  return JSON.stringify([{ Name: '/devpkg-registry', State: { Running: running }, NetworkSettings: { Networks: { kind: { IPAddress: ip } } } }]);
}

/** A docker stand-in: records argv (and what the cleanup list held at that moment). */
function fakeDocker(o: { exists?: boolean; running?: boolean; ip?: string }, cleanup: CleanupList) {
  const calls: { args: string[]; recorded: number }[] = [];
  let created = o.exists ?? false;
  const exec: ExecFn = async (_cmd, args) => {
    calls.push({ args: [...args], recorded: cleanup.list().length });
    if (args[0] === 'version') return { code: 0, stdout: '27.0.0', stderr: '' };
    if (args[0] === 'container' && args[1] === 'inspect') {
      return created
        ? { code: 0, stdout: inspect(o.ip ?? '172.18.0.3', o.running ?? true), stderr: '' }
        : { code: 1, stdout: '[]', stderr: 'Error: No such container: devpkg-registry' };
    }
    if (args[0] === 'run') {
      created = true;
      return { code: 0, stdout: 'abc123\n', stderr: '' };
    }
    return { code: 0, stdout: '', stderr: '' };
  };
  return { exec, calls };
}

const okFetch = (async () => new Response('{}', { status: 200 })) as typeof fetch;

describe('startKindRegistry', () => {
  test('records cleanup before docker run; returns push and cluster hosts', async () => {
    const cleanup = new CleanupList();
    const f = fakeDocker({}, cleanup);
    const docker = await Docker.create(f.exec);
    const r = await startKindRegistry(docker, cleanup, { hostPort: 5002, fetch: okFetch });
    expect(r).toEqual({ pushHost: 'localhost:5002', clusterHost: '172.18.0.3:5000', containerName: 'devpkg-registry', created: true });
    const run = f.calls.find((c) => c.args[0] === 'run');
    expect(run?.args).toEqual([
      'run', '-d', '--restart=always', '--name', 'devpkg-registry', '-p', '127.0.0.1:5002:5000', '--network', 'kind', 'registry:2',
    ]);
    expect(run?.recorded).toBe(1);
    expect(cleanup.list()).toEqual([{ kind: 'docker-container', name: 'devpkg-registry' }]);
  });

  test('started before the cluster (attachLater): on the network given, no cluster address yet', async () => {
    const cleanup = new CleanupList();
    const f = fakeDocker({}, cleanup);
    const r = await startKindRegistry(await Docker.create(f.exec), cleanup, { hostPort: 5002, network: 'bridge', attachLater: true, fetch: okFetch });
    expect(r).toEqual({ pushHost: 'localhost:5002', clusterHost: '', containerName: 'devpkg-registry', created: true });
    expect(f.calls.find((c) => c.args[0] === 'run')?.args).toContain('bridge');
  });

  test('the signal ends the wait for /v2/ at once, naming the container', async () => {
    const cleanup = new CleanupList();
    const f = fakeDocker({}, cleanup);
    const ac = new AbortController();
    let asked = 0;
    const down = (async () => {
      asked += 1;
      if (asked === 2) ac.abort();
      throw new TypeError('fetch failed: connect ECONNREFUSED');
    }) as typeof fetch;
    const sleeps: number[] = [];
    const err = await startKindRegistry(await Docker.create(f.exec), cleanup, { hostPort: 5002, fetch: down, signal: ac.signal, sleep: async (ms) => void sleeps.push(ms) }).catch((e: Error) => e);
    expect((err as Error).message).toBe('stopped waiting for the registry container devpkg-registry: another step failed or the run was interrupted');
    expect(asked).toBe(2);
    expect(sleeps).toEqual([100]);
  });

  test('reuses a running container and does not schedule its removal', async () => {
    const cleanup = new CleanupList();
    const f = fakeDocker({ exists: true, ip: '172.18.0.9' }, cleanup);
    const r = await startKindRegistry(await Docker.create(f.exec), cleanup, { fetch: okFetch });
    expect(r.clusterHost).toBe('172.18.0.9:5000');
    expect(r.created).toBe(false);
    expect(f.calls.some((c) => c.args[0] === 'run')).toBe(false);
    expect(cleanup.list()).toEqual([]);
  });

  test('a stopped container of that name is an error with the fix', async () => {
    const cleanup = new CleanupList();
    const f = fakeDocker({ exists: true, running: false }, cleanup);
    await expect(startKindRegistry(await Docker.create(f.exec), cleanup, { fetch: okFetch })).rejects.toThrow(/docker rm -f devpkg-registry/);
  });

  test('the default port 5001 taken: the half-made container is removed and docker picks a free port', async () => {
    const cleanup = new CleanupList();
    const calls: string[][] = [];
    let created = false;
    let runs = 0;
    const exec: ExecFn = async (_cmd, args) => {
      calls.push([...args]);
      if (args[0] === 'version') return { code: 0, stdout: '27.0.0', stderr: '' };
      if (args[0] === 'container') return created ? { code: 0, stdout: inspect('172.18.0.4'), stderr: '' } : { code: 1, stdout: '[]', stderr: 'Error: No such container: r' };
      if (args[0] === 'run' && runs++ === 0) {
        return { code: 125, stdout: '', stderr: 'docker: Error response from daemon: driver failed programming external connectivity: Bind for 127.0.0.1:5001 failed: port is already allocated.' };
      }
      if (args[0] === 'run') created = true;
      if (args[0] === 'port') return { code: 0, stdout: '127.0.0.1:49153\n', stderr: '' };
      return { code: 0, stdout: '', stderr: '' };
    };
    const urls: string[] = [];
    const f = (async (url: string | URL) => (urls.push(String(url)), new Response('{}', { status: 200 }))) as typeof fetch;
    const r = await startKindRegistry(await Docker.create(exec), cleanup, { name: 'r', fetch: f });
    expect(r.pushHost).toBe('localhost:49153');
    expect(calls.filter((c) => ['run', 'rm', 'port'].includes(c[0]!)).map((c) => c.slice(0, 7).join(' '))).toEqual([
      'run -d --restart=always --name r -p 127.0.0.1:5001:5000',
      'rm -f -v r',
      'run -d --restart=always --name r -p 127.0.0.1::5000',
      'port r 5000/tcp',
    ]);
    expect(urls).toEqual(['http://localhost:49153/v2/']);
  });

  test('a port the caller chose is not replaced', async () => {
    const cleanup = new CleanupList();
    const exec: ExecFn = async (_cmd, args) =>
      args[0] === 'version'
        ? { code: 0, stdout: '27.0.0', stderr: '' }
        : args[0] === 'container'
          ? { code: 1, stdout: '[]', stderr: 'Error: No such container: r' }
          : { code: 125, stdout: '', stderr: 'Bind for 127.0.0.1:6000 failed: port is already allocated' };
    await expect(startKindRegistry(await Docker.create(exec), cleanup, { name: 'r', hostPort: 6000, fetch: okFetch })).rejects.toThrow(/port 6000 is taken on 127.0.0.1: choose another one/);
  });

  test('waits until /v2/ answers on the published port', async () => {
    const cleanup = new CleanupList();
    const f = fakeDocker({}, cleanup);
    const urls: string[] = [];
    let n = 0;
    const flaky = (async (url: string | URL) => {
      urls.push(String(url));
      if (n++ < 2) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNRESET' } });
      return new Response('{}', { status: 200 });
    }) as typeof fetch;
    const slept: number[] = [];
    await startKindRegistry(await Docker.create(f.exec), cleanup, { fetch: flaky, sleep: async (ms) => void slept.push(ms) });
    expect(urls).toEqual(['http://localhost:5001/v2/', 'http://localhost:5001/v2/', 'http://localhost:5001/v2/']);
    expect(slept).toEqual([100, 200]);
  });
});

describe('clusterHostFor', () => {
  test.each([
    ['172.18.0.2', '172.18.0.2:5000'],
    ['10.89.0.4', '10.89.0.4:5000'],
  ])('%s', (ip, host) => expect(clusterHostFor(ip, 'kind', 'r')).toBe(host));
  test('no address on the network', () => expect(() => clusterHostFor(undefined, 'kind', 'r')).toThrow(/no IPv4 address on the docker network "kind"/));
  test('public address: kapp-controller would use HTTPS', () => expect(() => clusterHostFor('100.64.0.2', 'kind', 'r')).toThrow(/not an RFC1918 address/));
});

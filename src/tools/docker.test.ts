import type { ExecFn } from './exec.js';
import { Docker, dockerArgs, parseContainerInspect, parseInspectLabels } from './docker.js';

describe('dockerArgs', () => {
  test.each([
    [
      dockerArgs.runRegistry({ name: 'devpkg-registry', hostPort: 5001, network: 'kind' }),
      ['run', '-d', '--restart=always', '--name', 'devpkg-registry', '-p', '127.0.0.1:5001:5000', '--network', 'kind', 'registry:2'],
    ],
    [
      dockerArgs.runRegistry({ name: 'r', hostPort: 6000, network: 'n', image: 'mirror/registry:2.8' }),
      ['run', '-d', '--restart=always', '--name', 'r', '-p', '127.0.0.1:6000:5000', '--network', 'n', 'mirror/registry:2.8'],
    ],
    [
      dockerArgs.runRegistry({ name: 'r', hostPort: 0, network: 'kind' }),
      ['run', '-d', '--restart=always', '--name', 'r', '-p', '127.0.0.1::5000', '--network', 'kind', 'registry:2'],
    ],
    [dockerArgs.port('r'), ['port', 'r', '5000/tcp']],
    [dockerArgs.exec('node', ['mkdir', '-p', '/etc/containerd/certs.d/localhost:5001']), ['exec', 'node', 'mkdir', '-p', '/etc/containerd/certs.d/localhost:5001']],
    [dockerArgs.copyTo('/tmp/h.toml', 'node', '/etc/x/hosts.toml'), ['cp', '/tmp/h.toml', 'node:/etc/x/hosts.toml']],
    [dockerArgs.inspectContainer('r'), ['container', 'inspect', 'r']],
    [dockerArgs.removeContainer('r'), ['rm', '-f', '-v', 'r']],
    [dockerArgs.networkCreate('devpkg-x-1', { 'dev.devpkg.cluster': 'devpkg-x-1' }), ['network', 'create', '--driver', 'bridge', '-o', 'com.docker.network.bridge.enable_ip_masquerade=true', '--label', 'dev.devpkg.cluster=devpkg-x-1', 'devpkg-x-1']],
    [dockerArgs.removeNetwork('n'), ['network', 'rm', 'n']],
    [dockerArgs.psLabelled('dev.devpkg.cluster'), ['ps', '-a', '--filter', 'label=dev.devpkg.cluster', '--format', '{{.Names}}']],
    [dockerArgs.psLabelled('io.x-k8s.kind.cluster', true), ['ps', '-a', '--filter', 'label=io.x-k8s.kind.cluster', '--format', '{{.Names}}\t{{.Label "io.x-k8s.kind.cluster"}}']],
    [dockerArgs.networksLabelled('dev.devpkg.cluster'), ['network', 'ls', '--filter', 'label=dev.devpkg.cluster', '--format', '{{.Name}}']],
    [dockerArgs.runRegistry({ name: 'r', hostPort: 5001, network: 'n', labels: { a: '1' } }), ['run', '-d', '--restart=always', '--name', 'r', '--label', 'a=1', '-p', '127.0.0.1:5001:5000', '--network', 'n', 'registry:2']],
    [dockerArgs.networkConnect('kind', 'r'), ['network', 'connect', 'kind', 'r']],
    [dockerArgs.networkDisconnect('kind', 'r'), ['network', 'disconnect', '--force', 'kind', 'r']],
  ])('%j', (got, want) => expect(got).toEqual(want));
});

// Trimmed from a real `docker container inspect` of a registry:2 container on kind's network.
const INSPECT_OUTPUT = JSON.stringify([
  {
    Id: '4f1c',
    Name: '/devpkg-registry',
    State: { Status: 'running', Running: true, Pid: 4242 },
    NetworkSettings: {
      Ports: { '5000/tcp': [{ HostIp: '127.0.0.1', HostPort: '5001' }] },
      IPAddress: '',
      Networks: {
        kind: { IPAMConfig: null, Aliases: ['4f1c'], NetworkID: 'abc', IPAddress: '172.18.0.3', Gateway: '172.18.0.1', GlobalIPv6Address: 'fc00:f853:ccd:e793::3' },
        bridge: { IPAddress: '' },
      },
    },
  },
]);

describe('parseContainerInspect', () => {
  test('IPv4 per network, running, name without slash', () => {
    expect(parseContainerInspect(INSPECT_OUTPUT)).toEqual({ name: 'devpkg-registry', running: true, status: 'running', networks: { kind: '172.18.0.3' } });
  });
  test('a stopped container: its status, exit code and when it stopped', () => {
    const stopped = JSON.stringify([{ Name: '/r', State: { Status: 'exited', Running: false, ExitCode: 2, FinishedAt: '2026-12-05T08:00:00.5Z' }, NetworkSettings: { Networks: {} } }]);
    expect(parseContainerInspect(stopped)).toEqual({ name: 'r', running: false, status: 'exited', exitCode: 2, finishedAt: '2026-12-05T08:00:00.5Z', networks: {} });
  });
  test('labels of several containers or networks at once', () => {
    const out = JSON.stringify([
      { Name: '/devpkg-a-1-registry', Config: { Labels: { 'dev.devpkg.cluster': 'devpkg-a-1' } } },
      { Name: 'devpkg-a-1', Labels: { 'dev.devpkg.run.pid': '7' } },
      { Name: '/bare', Config: { Labels: null } },
    ]);
    expect(parseInspectLabels(out)).toEqual([
      { name: 'devpkg-a-1-registry', labels: { 'dev.devpkg.cluster': 'devpkg-a-1' } },
      { name: 'devpkg-a-1', labels: { 'dev.devpkg.run.pid': '7' } },
      { name: 'bare', labels: {} },
    ]);
    expect(parseInspectLabels('Error: No such container: x')).toEqual([]);
  });
  test('empty array: no container', () => expect(parseContainerInspect('[]')).toBeUndefined());
  test('not JSON', () => expect(() => parseContainerInspect('Error: boom')).toThrow(/not JSON/));
});

describe('Docker', () => {
  const exec: ExecFn = async (_c, args) => {
    if (args[0] === 'version') return { code: 0, stdout: '27.3.1\n', stderr: '' };
    if (args[0] === 'container') return { code: 1, stdout: '[]', stderr: 'Error response from daemon: No such container: x' };
    if (args[0] === 'run') return { code: 125, stdout: '', stderr: 'Bind for 127.0.0.1:5001 failed: port is already allocated' };
    return { code: 0, stdout: '', stderr: '' };
  };
  test('no container -> undefined; port taken -> says so', async () => {
    const d = await Docker.create(exec);
    expect(d.version).toBe('27.3.1');
    expect(await d.inspectContainer('x')).toBeUndefined();
    await expect(d.runRegistry({ name: 'x', hostPort: 5001, network: 'kind' })).rejects.toThrow(/port 5001 is taken on 127.0.0.1/);
  });
  test('no daemon', async () => {
    const down: ExecFn = async () => ({ code: 1, stdout: '', stderr: 'Cannot connect to the Docker daemon' });
    await expect(Docker.create(down)).rejects.toThrow(/docker does not answer.*needs a running Docker daemon/);
  });
});

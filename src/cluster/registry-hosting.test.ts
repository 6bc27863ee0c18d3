import { describe, expect, test } from '@jest/globals';
import { parseRepository } from '../bundle/reference.js';
import type { ContainerState } from '../tools/docker.js';
import { localRegistryHostingConfigMap } from './kind-config.js';
import {
  discoverPullAddress,
  parseDockerPs,
  parseRegistryHosting,
  registryContainerFor,
  resolvePullRegistry,
  sameLoopbackRegistry,
} from './registry-hosting.js';

const KIND_DOCS = 'host: "localhost:5001"\nhelp: "https://kind.sigs.k8s.io/docs/user/local-registry/"\n';
const PS = 'kind-control-plane\t127.0.0.1:36443->6443/tcp\nkind-registry\t127.0.0.1:5001->5000/tcp\nother\t0.0.0.0:8080->80/tcp, :::8080->80/tcp\n';
const push = parseRepository('localhost:5001/devpkg');

/** A docker stand-in: `ps` on the network and `inspect` of a container. */
function docker(ps: string, networks: Record<string, Record<string, string>> = { 'kind-registry': { kind: '172.18.0.3' } }) {
  const calls: string[] = [];
  return {
    calls,
    make: async () => ({
      psOnNetwork: async (n: string) => (calls.push(`ps ${n}`), ps),
      inspectContainer: async (name: string): Promise<ContainerState | undefined> =>
        (calls.push(`inspect ${name}`), networks[name] ? { name, running: true, networks: networks[name]! } : undefined),
    }),
  };
}

describe('parseRegistryHosting', () => {
  test.each([
    ['kind\'s documented form', KIND_DOCS, { host: 'localhost:5001' }],
    ['with the cluster network address', 'host: localhost:5001\nhostFromClusterNetwork: 172.18.0.3:5000\nhostFromContainerRuntime: kind-registry:5000\n', { host: 'localhost:5001', hostFromClusterNetwork: '172.18.0.3:5000', hostFromContainerRuntime: 'kind-registry:5000' }],
    ['none', undefined, undefined],
    ['not YAML', 'host: [', undefined],
    ['no host', 'help: x\n', undefined],
    ['a list', '- a\n', undefined],
  ])('%s', (_n, text, want) => expect(parseRegistryHosting(text)).toEqual(want));

  test('what devpkg\'s kind mode writes reads back', () => {
    const cm = localRegistryHostingConfigMap('localhost:5002', '172.18.0.4:5000') as { data: Record<string, string> };
    expect(parseRegistryHosting(cm.data['localRegistryHosting.v1'])).toEqual({ host: 'localhost:5002', hostFromClusterNetwork: '172.18.0.4:5000' });
  });
});

test.each([
  ['localhost:5001', '127.0.0.1:5001', true],
  ['localhost:5001', 'localhost:5002', false],
  ['localhost:5001', '172.18.0.3:5001', false],
])('sameLoopbackRegistry(%s, %s) = %s', (a, b, want) => expect(sameLoopbackRegistry(a, b)).toBe(want));

test('parseDockerPs and registryContainerFor: the container publishing the push port, and its port inside', () => {
  const list = parseDockerPs(PS);
  expect(list.map((c) => c.name)).toEqual(['kind-control-plane', 'kind-registry', 'other']);
  expect(registryContainerFor('localhost:5001', list)).toEqual({ name: 'kind-registry', containerPort: '5000' });
  expect(registryContainerFor('localhost:5009', list)).toBeUndefined();
});

describe('discoverPullAddress', () => {
  test('hostFromClusterNetwork is used as it is; docker is not asked', async () => {
    const d = docker(PS);
    const r = await discoverPullAddress(push, { readHosting: async () => 'host: localhost:5001\nhostFromClusterNetwork: 172.18.0.9:5000\n', docker: d.make });
    expect(r).toEqual({ host: '172.18.0.9:5000', how: 'hostFromClusterNetwork in ConfigMap kube-public/local-registry-hosting' });
    expect(d.calls).toEqual([]);
  });

  test('kind\'s documented ConfigMap (host only): the registry container on the kind network', async () => {
    const d = docker(PS);
    const r = await discoverPullAddress(push, { readHosting: async () => KIND_DOCS, docker: d.make });
    expect(r?.host).toBe('172.18.0.3:5000');
    expect(r?.how).toMatch(/container kind-registry publishes that port and is 172\.18\.0\.3 on the docker network kind/);
    expect(d.calls).toEqual(['ps kind', 'inspect kind-registry']);
  });

  test('a cluster on a network of its own (devpkg kind\'s per-run network, KIND_EXPERIMENTAL_DOCKER_NETWORK): found on the network of its nodes, not on kind', async () => {
    const calls: string[] = [];
    const networks: Record<string, Record<string, string>> = {
      'devpkg-7a-1-control-plane': { 'devpkg-7a-1': '172.19.0.2' },
      'devpkg-7a-1-registry': { 'devpkg-7a-1': '172.19.0.3' },
      'kind-registry': { kind: '172.18.0.3' },
    };
    const ps: Record<string, string> = {
      kind: 'kind-registry\t127.0.0.1:5001->5000/tcp\n',
      'devpkg-7a-1': 'devpkg-7a-1-control-plane\t127.0.0.1:40001->6443/tcp\ndevpkg-7a-1-registry\t127.0.0.1:5001->5000/tcp\n',
    };
    const make = async () => ({
      psOnNetwork: async (n: string) => (calls.push(`ps ${n}`), ps[n] ?? ''),
      inspectContainer: async (name: string): Promise<ContainerState | undefined> => (calls.push(`inspect ${name}`), networks[name] ? { name, running: true, networks: networks[name]! } : undefined),
    });
    const r = await discoverPullAddress(push, { readHosting: async () => KIND_DOCS, docker: make, nodes: async () => ['devpkg-7a-1-control-plane'] });
    expect(r?.host).toBe('172.19.0.3:5000');
    expect(r?.how).toMatch(/container devpkg-7a-1-registry publishes that port and is 172\.19\.0\.3 on the docker network devpkg-7a-1$/);
    expect(calls).toEqual(['inspect devpkg-7a-1-control-plane', 'ps devpkg-7a-1', 'inspect devpkg-7a-1-registry']);
    // Nodes that are not containers (not kind), or that cannot be listed: the kind network, as before.
    const logs: string[] = [];
    const noNodes = async () => {
      throw new Error('nodes is forbidden');
    };
    expect((await discoverPullAddress(push, { readHosting: async () => KIND_DOCS, docker: make, nodes: noNodes, log: (m) => logs.push(m) }))?.host).toBe('172.18.0.3:5000');
    expect(logs).toEqual(["cannot list the cluster's nodes: nodes is forbidden; looking on the docker network kind"]);
    expect((await discoverPullAddress(push, { readHosting: async () => KIND_DOCS, docker: make, nodes: async () => ['ip-10-0-0-1'] }))?.host).toBe('172.18.0.3:5000');
  });

  test.each([
    ['a push address that is not localhost', parseRepository('registry.example.com/devpkg'), KIND_DOCS, PS, {}, undefined],
    ['no ConfigMap', push, undefined, PS, {}, /no ConfigMap kube-public\/local-registry-hosting \(KEP-1755\) names a local registry/],
    ['a ConfigMap for another port', push, 'host: localhost:6000\n', PS, {}, /names localhost:6000, not localhost:5001/],
    ['no container publishes the port', push, KIND_DOCS, 'kind-control-plane\t127.0.0.1:36443->6443/tcp\n', {}, /no container on the docker network kind publishes its port/],
    ['the container is not on the kind network', push, KIND_DOCS, PS, { 'kind-registry': { bridge: '172.17.0.2' } }, /has no private \(RFC1918\) IPv4 on the docker network kind \(none\)/],
    ['a public address', push, KIND_DOCS, PS, { 'kind-registry': { kind: '8.8.8.8' } }, /8\.8\.8\.8.*would use HTTPS/],
  ])('%s: nothing found, and the log says why', async (_n, p, hosting, ps, networks, why) => {
    const logs: string[] = [];
    const d = docker(ps, Object.keys(networks).length ? networks : undefined);
    expect(await discoverPullAddress(p, { readHosting: async () => hosting, docker: d.make, log: (m) => logs.push(m) })).toBeUndefined();
    if (why) expect(logs.join('\n')).toMatch(why);
    else expect(logs).toEqual([]);
  });

  test('docker missing or not answering, or the ConfigMap unreadable: nothing found, said', async () => {
    const logs: string[] = [];
    const noDocker = async () => {
      throw new Error('docker does not answer');
    };
    expect(await discoverPullAddress(push, { readHosting: async () => KIND_DOCS, docker: noDocker, log: (m) => logs.push(m) })).toBeUndefined();
    expect(logs).toEqual(['cannot ask docker for the registry container: docker does not answer']);
    logs.length = 0;
    const forbidden = async () => {
      throw new Error('configmaps is forbidden');
    };
    expect(await discoverPullAddress(push, { readHosting: forbidden, log: (m) => logs.push(m) })).toBeUndefined();
    expect(logs[0]).toBe('cannot read ConfigMap kube-public/local-registry-hosting: configmaps is forbidden');
  });
});

describe('resolvePullRegistry', () => {
  const names = { push: '--registry', pull: '--cluster-registry' };
  test('found: the pull host, no warning, one log line naming how', async () => {
    const logs: string[] = [];
    const r = await resolvePullRegistry(push, undefined, { readHosting: async () => KIND_DOCS, docker: docker(PS).make, names, log: (m) => logs.push(m) });
    expect(r).toEqual({ clusterRegistry: { host: '172.18.0.3:5000', path: '' } });
    expect(logs).toEqual([expect.stringMatching(/^the cluster pulls from 172\.18\.0\.3:5000 \(--cluster-registry not set; ConfigMap kube-public\/local-registry-hosting names localhost:5001; container kind-registry/)]);
  });
  test('not found: the localhost warning as before', async () => {
    const r = await resolvePullRegistry(push, undefined, { readHosting: async () => undefined, names });
    expect(r.clusterRegistry).toBeUndefined();
    expect(r.warning).toMatch(/the cluster is to pull the bundle from localhost:5001 \(--registry; --cluster-registry is not set\)/);
  });
  test('a pull address given is kept and nothing is asked', async () => {
    const d = docker(PS);
    let read = false;
    const pull = { host: '172.18.0.7:5000', path: '' };
    expect(await resolvePullRegistry(push, pull, { readHosting: async () => ((read = true), KIND_DOCS), docker: d.make, names })).toEqual({ clusterRegistry: pull, warning: undefined });
    expect([read, d.calls]).toEqual([false, []]);
  });
});

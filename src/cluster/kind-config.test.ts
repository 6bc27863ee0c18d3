import { describe, expect, test } from '@jest/globals';
import { parse } from 'yaml';
import { UsageError } from '../errors.js';
import { configPaths, localRegistryHostingConfigMap, mergeKindConfig, REGISTRY_CONFIG_PATCH, registryHostsDir, registryHostsToml } from './kind-config.js';

const HEAD = 'kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n';
const NO_CNI = `${HEAD}networking:\n  disableDefaultCNI: true\nkubeadmConfigPatches:\n- |\n  kind: KubeletConfiguration\n  failCgroupV1: false\n`;

describe('mergeKindConfig: user settings kept, devpkg\'s registry patch added once', () => {
  test.each([
    ['no config', undefined, {}],
    ['an empty file', '  \n', {}],
    ['only kind and apiVersion', HEAD, {}],
    ['kubeadm patches and no default CNI', NO_CNI, { networking: { disableDefaultCNI: true }, kubeadmConfigPatches: ['kind: KubeletConfiguration\nfailCgroupV1: false\n'] }],
    ['two nodes', `${HEAD}nodes:\n- role: control-plane\n- role: worker\n`, { nodes: [{ role: 'control-plane' }, { role: 'worker' }] }],
  ])('%s', (_name, text, kept) => {
    const out = parse(mergeKindConfig(text).text) as Record<string, unknown>;
    expect(out).toEqual({ kind: 'Cluster', apiVersion: 'kind.x-k8s.io/v1alpha4', ...kept, containerdConfigPatches: [REGISTRY_CONFIG_PATCH] });
  });

  test('a user patch is kept and devpkg\'s comes after it', () => {
    const user = '[plugins."io.containerd.grpc.v1.cri".containerd]\n  snapshotter = "native"';
    const text = `${HEAD}containerdConfigPatches:\n- |-\n  ${user.replace('\n', '\n  ')}\n`;
    const out = parse(mergeKindConfig(text).text) as { containerdConfigPatches: string[] };
    expect(out.containerdConfigPatches).toEqual([user, REGISTRY_CONFIG_PATCH]);
  });

  test('the same config_path already there: not added twice', () => {
    const text = `${HEAD}containerdConfigPatches:\n- |-\n  [plugins."io.containerd.grpc.v1.cri".registry]\n    config_path = "/etc/containerd/certs.d"\n`;
    const out = parse(mergeKindConfig(text).text) as { containerdConfigPatches: string[] };
    expect(out.containerdConfigPatches).toHaveLength(1);
  });

  test('a name in the file is dropped with a note (devpkg names the cluster per run)', () => {
    const m = mergeKindConfig(`${HEAD}name: mine\n`, 'kind.yaml');
    expect((parse(m.text) as Record<string, unknown>).name).toBeUndefined();
    expect(m.notes).toEqual(['kind.yaml: name "mine" is replaced by devpkg\'s cluster name for this run']);
  });

  test.each([
    ['not YAML', 'kind: [Cluster\n', /kind.yaml: not valid YAML/],
    ['a list', '- a\n', /kind.yaml: a kind config is a mapping with kind: Cluster/],
    ['another kind', 'kind: Pod\napiVersion: v1\n', /kind.yaml: kind "Pod", apiVersion "v1": devpkg takes a kind cluster config/],
    ['an old apiVersion', 'kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha3\n', /apiVersion "kind.x-k8s.io\/v1alpha3"/],
    ['patches not strings', `${HEAD}containerdConfigPatches:\n- {a: 1}\n`, /containerdConfigPatches must be a list of TOML strings/],
    [
      'another config_path',
      `${HEAD}containerdConfigPatches:\n- |\n  [plugins."io.containerd.grpc.v1.cri".registry]\n    config_path = "/etc/registries"\n`,
      /containerdConfigPatches\[0\] sets config_path = "\/etc\/registries"; devpkg's local registry needs config_path = "\/etc\/containerd\/certs.d"/,
    ],
    [
      'registry mirrors',
      `${HEAD}containerdConfigPatches:\n- |\n  [plugins."io.containerd.grpc.v1.cri".registry.mirrors."localhost:5000"]\n    endpoint = ["http://r:5000"]\n`,
      /containerdConfigPatches\[0\] configures registry.mirrors\/registry.configs, which containerd refuses together with config_path/,
    ],
  ])('refused: %s', (_name, text, message) => {
    expect(() => mergeKindConfig(text, 'kind.yaml')).toThrow(UsageError);
    expect(() => mergeKindConfig(text, 'kind.yaml')).toThrow(message);
  });
});

describe('registry pieces', () => {
  test('configPaths', () => {
    expect(configPaths(`a = 1\n  config_path = "/x"\nconfig_path='/y'\n`)).toEqual(['/x', '/y']);
    expect(configPaths('sandbox_image = "p"')).toEqual([]);
  });
  test('hosts.toml for localhost:5001 points at the container on the kind network', () => {
    expect(registryHostsDir('localhost:5001')).toBe('/etc/containerd/certs.d/localhost:5001');
    expect(registryHostsToml('devpkg-registry')).toBe('[host."http://devpkg-registry:5000"]\n');
  });
  test('local-registry-hosting ConfigMap', () => {
    const cm = localRegistryHostingConfigMap('localhost:5001') as { metadata: unknown; data: Record<string, string> };
    expect(cm.metadata).toEqual({ name: 'local-registry-hosting', namespace: 'kube-public' });
    expect(parse(cm.data['localRegistryHosting.v1']!)).toEqual({ host: 'localhost:5001', help: 'https://kind.sigs.k8s.io/docs/user/local-registry/' });
    // With the registry's address on the kind network: where the cluster pulls from (KEP-1755).
    const withPull = localRegistryHostingConfigMap('localhost:5001', '172.18.0.3:5000') as { data: Record<string, string> };
    expect(parse(withPull.data['localRegistryHosting.v1']!)).toEqual({
      host: 'localhost:5001',
      hostFromClusterNetwork: '172.18.0.3:5000',
      help: 'https://kind.sigs.k8s.io/docs/user/local-registry/',
    });
  });
});

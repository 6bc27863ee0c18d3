import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ExecFn } from '../tools/exec.js';
import { Ytt } from '../tools/ytt.js';
import { bomText, defaultBoms, renderOnlyBoms, RENDER_ONLY_TKR, type Bom } from './bom.js';
import {
  cliValues,
  dataValueArg,
  dataValueKeys,
  indexedIPv4,
  infrastructureVersion,
  parseTemplateDefinition,
  planRender,
  renderProviders,
  templateDefinitionFile,
} from './render.js';

const DEFINITION = `apiVersion: providers.tanzu.vmware.com/v1alpha1
kind: TemplateDefinition
spec:
  paths:
    - path: providers/infrastructure-docker/v1.1.5/ytt
    - path: providers/infrastructure-docker/ytt
    - path: providers/ytt
    - path: bom
      filemark: text-plain
    - path: providers/config_default.yaml
`;

test('parseTemplateDefinition keeps the order and the filemarks', () => {
  expect(parseTemplateDefinition(DEFINITION, 'def.yaml')).toEqual([
    { path: 'providers/infrastructure-docker/v1.1.5/ytt' },
    { path: 'providers/infrastructure-docker/ytt' },
    { path: 'providers/ytt' },
    { path: 'bom', filemark: 'text-plain' },
    { path: 'providers/config_default.yaml' },
  ]);
  expect(() => parseTemplateDefinition('kind: Cluster\n', 'x.yaml')).toThrow(/x.yaml is not a TemplateDefinition/);
});

describe('infrastructureVersion', () => {
  const config = [
    'providers:',
    '- name: cluster-api',
    '  url: providers/cluster-api/v1.1.5/core-components.yaml',
    '  type: CoreProvider',
    '- name: docker',
    '  url: providers/infrastructure-docker/v1.1.5/infrastructure-components.yaml',
    '  type: InfrastructureProvider',
    '- name: kubeadm',
    '  url: providers/bootstrap-kubeadm/v1.1.5/bootstrap-components.yaml',
    '  type: BootstrapProvider',
  ].join('\n');
  test.each([
    ['docker', 'v1.1.5'],
    ['kubeadm', /no kubeadm InfrastructureProvider .*listed: cluster-api, docker, kubeadm/],
    ['aws', /no aws InfrastructureProvider/],
  ])('%s', (infra, want) => {
    if (typeof want === 'string') expect(infrastructureVersion(config, infra)).toBe(want);
    else expect(() => infrastructureVersion(config, infra)).toThrow(want);
  });
});

test('templateDefinitionFile follows GetTemplateName', () => {
  expect(templateDefinitionFile('docker', 'v1.1.5', 'dev')).toBe('providers/infrastructure-docker/v1.1.5/cluster-template-definition-dev.yaml');
});

test('dataValueKeys: the top-level keys, ytt annotations being comments', () => {
  expect(dataValueKeys('#@data/values\n#@overlay/match-child-defaults missing_ok=True\n---\nCLUSTER_NAME:\nCNI: antrea\n#@ files = data.list()\nboms:\n  #@ for/end f in files:\n  - bom_name: #@ f\n')).toEqual([
    'CLUSTER_NAME',
    'CNI',
    'boms',
  ]);
});

describe('dataValueArg: YAML when the value parses to something, else a quoted string (ytt.go Process)', () => {
  test.each([
    ['antrea', 'CNI=antrea'],
    ['true', 'CNI=true'],
    [true, 'CNI=true'],
    [3, 'CNI=3'],
    ['null', 'CNI=null'],
    ['~', 'CNI=~'],
    ['', 'CNI=""'],
    [undefined, 'CNI=""'],
    ['#not a comment', 'CNI="#not a comment"'],
    ['a: b: c', 'CNI="a: b: c"'],
    ['v1.23.8+vmware.2', 'CNI=v1.23.8+vmware.2'],
    ['cni/antrea,addons-management/kapp-controller', 'CNI=cni/antrea,addons-management/kapp-controller'],
  ])('%j', (value, want) => expect(dataValueArg('CNI', value)).toBe(want));
});

describe('cliValues', () => {
  const [tkgBom, tkrBom] = renderOnlyBoms() as [Bom, Bom];
  test.each([
    [
      'a dev management cluster on docker',
      { CLUSTER_NAME: 'mgmt' },
      'management',
      {
        CLUSTER_NAME: 'mgmt',
        CLUSTER_PLAN: 'dev',
        TKG_CLUSTER_ROLE: 'management',
        CNI: 'antrea',
        BUILD_EDITION: 'tkg',
        CONTROL_PLANE_MACHINE_COUNT: 1,
        WORKER_MACHINE_COUNT: 1,
        SERVICE_CIDR: '100.64.0.0/13',
        CLUSTER_CIDR: '100.96.0.0/11',
        CORE_DNS_IP: '100.64.0.10',
      },
    ],
    [
      'the config picks plan, CNI and edition; the CLI picks namespace, role and provider type',
      { CLUSTER_NAME: 'm', CLUSTER_PLAN: 'prod', CNI: 'calico', BUILD_EDITION: 'tce', NAMESPACE: 'elsewhere', TKG_CLUSTER_ROLE: 'management', PROVIDER_TYPE: 'aws', SERVICE_CIDR: '10.96.0.0/12' },
      'workload',
      { CLUSTER_PLAN: 'prod', CNI: 'calico', BUILD_EDITION: 'tce', NAMESPACE: 'tkg-system', TKG_CLUSTER_ROLE: 'workload', PROVIDER_TYPE: 'docker', CONTROL_PLANE_MACHINE_COUNT: 3, CORE_DNS_IP: '10.96.0.10' },
    ],
  ] as const)('%s', (_what, config, role, want) => {
    const v = cliValues(config, { infrastructure: 'docker', role, tkgBom, tkrBom });
    expect(v).toMatchObject(want);
    expect(v).toMatchObject({
      TKG_DEFAULT_BOM: tkgBom.name,
      KUBERNETES_RELEASE: RENDER_ONLY_TKR.replace('+', '---'),
      KUBERNETES_VERSION: 'v1.23.8+vmware.2',
      INFRASTRUCTURE_PROVIDER: 'docker',
      DOCKER_MACHINE_TEMPLATE_IMAGE: 'projects.registry.vmware.com/tkg/kind/node:devpkg-render-only',
    });
  });

  test("TKG_CUSTOM_IMAGE_REPOSITORY replaces the BOM's repository of the node image", () => {
    const v = cliValues({ CLUSTER_NAME: 'm', TKG_CUSTOM_IMAGE_REPOSITORY: 'harbor.example.com/tkg' }, { infrastructure: 'docker', role: 'management', tkgBom, tkrBom });
    expect(v.DOCKER_MACHINE_TEMPLATE_IMAGE).toBe('harbor.example.com/tkg/kind/node:devpkg-render-only');
    expect(v.TKG_CUSTOM_IMAGE_REPOSITORY).toBe('harbor.example.com/tkg');
  });
});

test('cliValues: a cluster name like the CLI generates when the config names none', () => {
  const [tkgBom, tkrBom] = renderOnlyBoms() as [Bom, Bom];
  const v = cliValues({}, { infrastructure: 'docker', role: 'management', tkgBom, tkrBom, now: new Date(2026, 0, 2, 3, 4, 5) });
  expect(v.CLUSTER_NAME).toBe('tkg-mgmt-docker-20260102030405');
});

test.each([
  ['100.64.0.0/13', 10, '100.64.0.10'],
  ['10.96.5.7/12', 10, '10.96.0.10'],
  ['192.168.1.0/24', 255, '192.168.1.255'],
  ['fd00::/108', 10, undefined],
])('indexedIPv4(%s, %d)', (cidr, i, want) => expect(indexedIPv4(cidr, i)).toBe(want));

test('planRender: the definition paths in order, file marks for the marked folder, declared values only', () => {
  const plan = planRender({
    tkgDir: '/h/.config/tanzu/tkg',
    paths: parseTemplateDefinition(DEFINITION, 'def.yaml'),
    marked: { bom: ['tkg-bom-v1.6.1.yaml', 'tkr-bom-v1.23.8+vmware.2-tkg.1.yaml'] },
    relocate: { bom: '/tmp/b' },
    keys: ['CLUSTER_NAME', 'CNI', 'FILTER_BY_ADDON_TYPE'],
    values: { CNI: 'antrea', CLUSTER_NAME: 'mgmt', FILTER_BY_ADDON_TYPE: '', MY_OWN: 'x', UNSET: undefined },
  });
  expect(plan).toEqual({
    files: [
      '/h/.config/tanzu/tkg/providers/infrastructure-docker/v1.1.5/ytt',
      '/h/.config/tanzu/tkg/providers/infrastructure-docker/ytt',
      '/h/.config/tanzu/tkg/providers/ytt',
      '/tmp/b',
      '/h/.config/tanzu/tkg/providers/config_default.yaml',
    ],
    fileMarks: ['tkg-bom-v1.6.1.yaml:type=text-plain', 'tkr-bom-v1.23.8+vmware.2-tkg.1.yaml:type=text-plain'],
    dataValuesYaml: ['CLUSTER_NAME=mgmt', 'CNI=antrea', 'FILTER_BY_ADDON_TYPE=""'],
    ignored: ['MY_OWN'],
  });
});

describe('defaultBoms', () => {
  const tkg = (tag: string, tkr: string): Bom => ({ name: `tkg-bom-${tag}.yaml`, data: { default: { k8sVersion: tkr } } });
  const tkr = (v: string): Bom => ({ name: `tkr-bom-${v}.yaml`, data: { release: { version: v } } });
  const boms = [tkg('v1.6.0', 'v1.23.8+vmware.1-tkg.1'), tkg('v1.6.1', 'v1.23.8+vmware.2-tkg.1'), tkr('v1.23.8+vmware.1-tkg.1'), tkr('v1.23.8+vmware.2-tkg.1')];
  test.each([
    [undefined, 'tkg-bom-v1.6.1.yaml', 'tkr-bom-v1.23.8+vmware.2-tkg.1.yaml'],
    ['tkg-bom-v1.6.0.yaml', 'tkg-bom-v1.6.0.yaml', 'tkr-bom-v1.23.8+vmware.1-tkg.1.yaml'],
  ])('wanted %s', (wanted, t, r) => {
    const d = defaultBoms(boms, wanted);
    expect([d.tkg.name, d.tkr.name]).toEqual([t, r]);
  });
  test.each([
    [[tkr('v1')], undefined, /no tkg-bom-\*.yaml/],
    [boms, 'tkg-bom-v9.yaml', /TKG_DEFAULT_BOM tkg-bom-v9.yaml is not among/],
    [[tkg('v1.6.1', 'v1.99.0')], undefined, /names TKr v1.99.0 \(default.k8sVersion\), but no tkr-bom/],
  ])('%#: says what is missing', (b, wanted, err) => expect(() => defaultBoms(b, wanted)).toThrow(err));
  test('the render-only pair belongs together', () => {
    const r = renderOnlyBoms();
    expect(defaultBoms(r)).toEqual({ tkg: r[0], tkr: r[1] });
  });
});

describe('renderProviders runs ytt with the plan (ytt recorded)', () => {
  let tkg = '';
  beforeEach(async () => {
    tkg = await mkdtemp(path.join(os.tmpdir(), 'devpkg-render-'));
    await mkdir(path.join(tkg, 'providers', 'infrastructure-docker', 'v1.1.5'), { recursive: true });
    await writeFile(path.join(tkg, 'providers', 'config.yaml'), 'providers:\n- name: docker\n  url: providers/infrastructure-docker/v1.1.5/infrastructure-components.yaml\n  type: InfrastructureProvider\n');
    await writeFile(path.join(tkg, 'providers', 'infrastructure-docker', 'v1.1.5', 'cluster-template-definition-dev.yaml'), DEFINITION);
    await writeFile(path.join(tkg, 'providers', 'config_default.yaml'), '#@data/values\n---\nCLUSTER_NAME:\nCNI: antrea\nTKG_DEFAULT_BOM:\n');
    await writeFile(path.join(tkg, 'mgmt.yaml'), 'CLUSTER_NAME: mgmt\nCNI: calico\nUNKNOWN: x\n');
  });
  afterEach(() => rm(tkg, { recursive: true, force: true }));

  const recorder = () => {
    const calls: { args: string[]; bom: string[] }[] = [];
    const exec: ExecFn = async (_cmd, args) => {
      const bomDir = args[args.indexOf('-f', 6) + 1]!;
      calls.push({ args: [...args], bom: (await readdir(bomDir)).sort() });
      return { code: 0, stdout: 'kind: Cluster\n', stderr: '' };
    };
    return { calls, ytt: new Ytt('ytt', exec) };
  };

  test('no bom folder: the render-only BOMs, in a temp folder removed afterwards', async () => {
    const { calls, ytt } = recorder();
    const r = await renderProviders({ ytt, providersDir: path.join(tkg, 'providers'), clusterConfig: path.join(tkg, 'mgmt.yaml') });
    expect(r).toMatchObject({ text: 'kind: Cluster\n', bom: 'render-only', plan: { ignored: expect.arrayContaining(['UNKNOWN']) } });
    const { args, bom } = calls[0]!;
    expect(bom).toEqual(['tkg-bom-devpkg-render-only.yaml', 'tkr-bom-devpkg-render-only.yaml']);
    expect(args).toEqual(expect.arrayContaining(['--file-mark', 'tkg-bom-devpkg-render-only.yaml:type=text-plain', '--data-value-yaml', 'CNI=calico', 'TKG_DEFAULT_BOM=tkg-bom-devpkg-render-only.yaml']));
    await expect(readdir(args[args.indexOf('-f', 6) + 1]!)).rejects.toThrow(/ENOENT/);
  });

  test("the tkg folder's bom/ when it has a TKG BOM", async () => {
    await mkdir(path.join(tkg, 'bom'));
    for (const b of renderOnlyBoms()) await writeFile(path.join(tkg, 'bom', b.name.replace('devpkg-render-only', 'mine')), bomText(b));
    const { calls, ytt } = recorder();
    const r = await renderProviders({ ytt, providersDir: path.join(tkg, 'providers'), clusterConfig: path.join(tkg, 'mgmt.yaml'), role: 'workload' });
    expect(r.bom).toBe('tkg');
    expect(calls[0]!.args.slice(0, 10)).toEqual(['-f', `${tkg}/providers/infrastructure-docker/v1.1.5/ytt`, '-f', `${tkg}/providers/infrastructure-docker/ytt`, '-f', `${tkg}/providers/ytt`, '-f', `${tkg}/bom`, '-f', `${tkg}/providers/config_default.yaml`]);
    expect(calls[0]!.args).toEqual(expect.arrayContaining(['tkg-bom-mine.yaml:type=text-plain', 'TKG_DEFAULT_BOM=tkg-bom-mine.yaml']));
  });

  test('a plan the infrastructure does not have', async () => {
    await writeFile(path.join(tkg, 'mgmt.yaml'), 'CLUSTER_NAME: m\nCLUSTER_PLAN: huge\n');
    await expect(renderProviders({ ytt: recorder().ytt, providersDir: path.join(tkg, 'providers'), clusterConfig: path.join(tkg, 'mgmt.yaml') })).rejects.toThrow(/have no huge plan for docker v1.1.5/);
  });
});

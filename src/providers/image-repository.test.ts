import { parseInputs } from '../inputs.js';
import { inputsFrom } from '../../test/support/inputs.js';
import { checkImageRepository, imageReferences, imageRepositoryValues, parseImageRepository, withConfigValues } from './image-repository.js';
import { parse } from 'yaml';

const names = { repository: '--repo', skipTlsVerify: '--skip', caCertificate: '--ca' };
const PEM = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUabc\n-----END CERTIFICATE-----';
const B64 = Buffer.from(`${PEM}\n`).toString('base64');

describe('parseImageRepository', () => {
  test.each([
    ['empty', '', false, '', undefined],
    ['a host and path', 'harbor.example.com/tkg', false, '', { repository: 'harbor.example.com/tkg' }],
    ['a port and a trailing slash', 'mirror.local:8443/tkg/', true, '', { repository: 'mirror.local:8443/tkg', skipTlsVerify: true }],
    ['a PEM CA', 'harbor.example.com/tkg', false, PEM, { repository: 'harbor.example.com/tkg', caCertificate: B64 }],
    ['a base64 CA', 'harbor.example.com/tkg', false, B64, { repository: 'harbor.example.com/tkg', caCertificate: B64 }],
  ])('%s', (_what, repo, skip, ca, want) => {
    expect(parseImageRepository(repo, skip, ca, names)).toEqual(want);
  });

  test.each([
    ['a scheme', 'https://harbor.example.com/tkg', false, '', /^--repo: "https:\/\/harbor.example.com\/tkg" is not HOST\[:PORT\]\[\/PATH\]/],
    ['spaces', 'harbor example', false, '', /^--repo: .* is not HOST/],
    ['the decommissioned registry', 'projects.registry.vmware.com/tkg', false, '', /^--repo: projects.registry.vmware.com is the registry the TKG 1.x BOMs name, decommissioned in 2024; give your mirror/],
    ['a CA that is not a certificate', 'harbor.example.com/tkg', false, 'not a cert', /^--ca: not a PEM certificate, nor the base64 of one/],
    ['companions without a repository', '', true, '', /^--skip and --ca apply to --repo, which is not set/],
  ])('refuses %s', (_what, repo, skip, ca, message) => {
    expect(() => parseImageRepository(repo, skip, ca, names)).toThrow(message);
  });
});

test('the config variables, and a copy of the cluster config with them set over its own', () => {
  const r = { repository: 'harbor.example.com/tkg', caCertificate: B64 };
  expect(imageRepositoryValues(r)).toEqual({
    TKG_CUSTOM_IMAGE_REPOSITORY: 'harbor.example.com/tkg',
    TKG_CUSTOM_IMAGE_REPOSITORY_SKIP_TLS_VERIFY: false,
    TKG_CUSTOM_IMAGE_REPOSITORY_CA_CERTIFICATE: B64,
  });
  const out = parse(withConfigValues('CLUSTER_NAME: m1\nTKG_CUSTOM_IMAGE_REPOSITORY: old.example.com\nCNI: antrea\n', imageRepositoryValues(r)));
  expect(out).toEqual({ CLUSTER_NAME: 'm1', CNI: 'antrea', TKG_CUSTOM_IMAGE_REPOSITORY: 'harbor.example.com/tkg', TKG_CUSTOM_IMAGE_REPOSITORY_SKIP_TLS_VERIFY: false, TKG_CUSTOM_IMAGE_REPOSITORY_CA_CERTIFICATE: B64 });
  expect(() => withConfigValues('- a\n- b\n', {}, 'mgmt.yaml')).toThrow('mgmt.yaml is not a flat KEY: value map');
  expect(() => withConfigValues('a: [\n', {}, 'mgmt.yaml')).toThrow(/^mgmt.yaml is not YAML/);
});

describe('checkImageRepository', () => {
  const kcp = (repo: string) =>
    `kind: KubeadmControlPlane\nspec:\n  kubeadmConfigSpec:\n    clusterConfiguration:\n      imageRepository: ${repo}\n---\nkind: DockerMachineTemplate\nspec:\n  template:\n    spec:\n      customImage: ${repo}/kind/node:v1.23.10_vmware.1\n`;
  const r = { repository: 'harbor.example.com/tkg' };

  test('image references are collected from every cluster object', () => {
    expect(imageReferences([parse('spec: {containers: [{image: a/b:1}, {image: a/b:1}], imageRepository: r}')])).toEqual(['a/b:1', 'r']);
  });
  test('a render that pulls from the mirror passes', () => {
    expect(checkImageRepository(kcp('harbor.example.com/tkg'), r)).toEqual({ mirrored: ['harbor.example.com/tkg', 'harbor.example.com/tkg/kind/node:v1.23.10_vmware.1'], old: [] });
  });
  test('a render that still pulls only from the decommissioned registry fails, naming what', () => {
    expect(() => checkImageRepository(kcp('projects.registry.vmware.com/tkg'), r)).toThrow(
      /^the dry-run render pulls projects.registry.vmware.com\/tkg, projects.registry.vmware.com\/tkg\/kind\/node:v1.23.10_vmware.1 from projects.registry.vmware.com and nothing from harbor.example.com\/tkg: these providers do not apply TKG_CUSTOM_IMAGE_REPOSITORY/,
    );
  });
  test('a render with no image references says nothing either way', () => {
    expect(checkImageRepository('kind: Secret\n', r)).toEqual({ mirrored: [], old: [] });
  });
});

describe('the action inputs', () => {
  test('are read into Inputs.imageRepository', () => {
    const i = parseInputs(inputsFrom({ mode: 'bootstrap', 'tkg-custom-image-repository': 'harbor.example.com/tkg', 'tkg-custom-image-repository-skip-tls-verify': 'true' }));
    expect(i.imageRepository).toEqual({ repository: 'harbor.example.com/tkg', skipTlsVerify: true });
    expect(parseInputs(inputsFrom({ mode: 'bootstrap' })).imageRepository).toBeUndefined();
  });
  test('a bad one names the input', () => {
    expect(() => parseInputs(inputsFrom({ mode: 'bootstrap', 'tkg-custom-image-repository': 'oci://x' }))).toThrow(/^input tkg-custom-image-repository: "oci:\/\/x" is not HOST/);
    expect(() => parseInputs(inputsFrom({ mode: 'bootstrap', 'tkg-custom-image-repository-ca-certificate': PEM }))).toThrow(
      'input tkg-custom-image-repository-skip-tls-verify and input tkg-custom-image-repository-ca-certificate apply to input tkg-custom-image-repository, which is not set',
    );
  });
});

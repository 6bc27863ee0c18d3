import { UsageError } from '../errors.js';
import {
  apiHost,
  bundleRepository,
  checkImageReference,
  formatRepository,
  parseDigestReference,
  parseImageTag,
  parseRepository,
  rewriteImageHost,
  usesPlainHttp,
  validateTag,
  type Registry,
} from './reference.js';

describe('validateTag', () => {
  test.each(['1.2.3', '1.2.3_vmware.1-tkg.1', 'v1.0.0-dev.1', '_x', 'a'.repeat(128)])('accepts %s', (tag) => {
    expect(validateTag(tag)).toBe(tag);
  });
  test.each([
    ['1.2.3+vmware.1', /contains "\+".*use "1.2.3_vmware.1"/],
    ['', /empty/],
    ['.hidden', /not a valid OCI tag/],
    ['-x', /not a valid OCI tag/],
    ['a/b', /not a valid OCI tag/],
    ['a'.repeat(129), /at most 128/],
  ])('rejects %j', (tag, msg) => {
    expect(() => validateTag(tag)).toThrow(UsageError);
    expect(() => validateTag(tag)).toThrow(msg);
  });
});

describe('parseRepository', () => {
  test.each([
    ['localhost:5001/devpkg/antrea', { host: 'localhost:5001', path: 'devpkg/antrea' }],
    ['ghcr.io/my-org/pkgs/antrea/', { host: 'ghcr.io', path: 'my-org/pkgs/antrea' }],
    ['172.18.0.2:5000/x', { host: '172.18.0.2:5000', path: 'x' }],
    ['[::1]:5000/a_b/c__d/e-f', { host: '[::1]:5000', path: 'a_b/c__d/e-f' }],
  ])('%s', (text, want) => expect(parseRepository(text)).toEqual(want));
  test.each([
    ['https://ghcr.io/x', /without a scheme/],
    ['devpkg/antrea', /does not start with a registry host/],
    ['ghcr.io', /names only the registry/],
    ['ghcr.io/My-Org/x', /path component "My-Org"/],
    ['ghcr.io/a//b', /path component ""/],
  ])('rejects %s', (text, msg) => expect(() => parseRepository(text)).toThrow(msg));
});

describe('parseImageTag', () => {
  test('port is not a tag', () => {
    expect(parseImageTag('localhost:5001/devpkg/antrea:1.2.3_dev.1')).toEqual({
      repository: { host: 'localhost:5001', path: 'devpkg/antrea' },
      tag: '1.2.3_dev.1',
    });
  });
  test.each([
    ['localhost:5001/devpkg/antrea', /has no tag/],
    ['localhost:5001/x:1.0.0+dev', /contains "\+"/],
    ['localhost:5001/x@sha256:' + 'a'.repeat(64), /not a digest/],
  ])('rejects %s', (text, msg) => expect(() => parseImageTag(text)).toThrow(msg));
});

test('parseDigestReference', () => {
  const d = 'sha256:' + 'ab'.repeat(32);
  expect(parseDigestReference(`localhost:5001/a/b@${d}`)).toEqual({ repository: { host: 'localhost:5001', path: 'a/b' }, digest: d });
  expect(() => parseDigestReference('localhost:5001/a/b:tag')).toThrow(/not a digest reference/);
  expect(() => parseDigestReference('localhost:5001/a/b@sha256:abc')).toThrow(/not a digest reference/);
});

describe('usesPlainHttp (go-containerregistry rule)', () => {
  test.each([
    ['localhost:5001', true],
    ['localhost', true],
    ['127.0.0.1:5000', true],
    ['127.1.2.3:80', true],
    ['[::1]:5000', true],
    ['registry.local:5000', true],
    ['10.1.2.3:5000', true],
    ['172.16.0.1:5000', true],
    ['172.18.0.2:5000', true],
    ['172.31.255.255', true],
    ['172.32.0.1:5000', false],
    ['172.15.0.1:5000', false],
    ['192.168.1.1:5000', true],
    ['192.169.1.1:5000', false],
    ['8.8.8.8:5000', false],
    ['ghcr.io', false],
    ['localhost.example.com', false],
    ['devpkg-registry:5000', false],
  ])('%s -> %s', (host, plain) => expect(usesPlainHttp(host)).toBe(plain));
});

test('apiHost maps Docker Hub names', () => {
  expect(apiHost('docker.io')).toBe('registry-1.docker.io');
  expect(apiHost('index.docker.io')).toBe('registry-1.docker.io');
  expect(apiHost('ghcr.io')).toBe('ghcr.io');
});

describe('rewriteImageHost', () => {
  const d = 'sha256:' + 'c'.repeat(64);
  test('pushed host -> cluster host', () => {
    expect(rewriteImageHost(`localhost:5001/devpkg/antrea@${d}`, 'localhost:5001', '172.18.0.3:5000')).toBe(
      `172.18.0.3:5000/devpkg/antrea@${d}`,
    );
  });
  test('another host is refused, not half-rewritten', () => {
    expect(() => rewriteImageHost(`localhost:50011/x@${d}`, 'localhost:5001', '172.18.0.3:5000')).toThrow(/is not on localhost:5001/);
  });
});

describe('bundleRepository: never the name of the package\'s own image', () => {
  test.each<[Registry, string, string]>([
    [{ host: 'localhost:5001', path: 'devpkg' }, 'antrea', 'localhost:5001/devpkg/antrea-bundle'],
    [{ host: 'ghcr.io', path: 'me/dev' }, 'calico', 'ghcr.io/me/dev/calico-bundle'],
    [{ host: '172.18.0.3:5000', path: '' }, 'antrea', '172.18.0.3:5000/antrea-bundle'],
  ])('%j + %s', (registry, name, want) => expect(formatRepository(bundleRepository(registry, name))).toBe(want));
  test('differs from <registry>/<package>, where a workload image usually lives', () => {
    expect(formatRepository(bundleRepository({ host: 'localhost:5001', path: '' }, 'web'))).not.toBe('localhost:5001/web');
  });
  test('a package name that cannot name a repository is that package\'s error, naming it', () => {
    expect(() => bundleRepository({ host: 'localhost:5001', path: 'devpkg' }, 'Antrea')).toThrow(
      /^package "Antrea" cannot name a bundle repository \("Antrea-bundle"\): repository names use lowercase letters/,
    );
  });
});

describe('checkImageReference', () => {
  test.each([
    'registry:3',
    'docker.io/library/registry:3@sha256:1be55279f18a2fe1a74edf2664cac61c1bea305b7b4642dab412e7affdcb3e33',
    'kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5',
    'devpkg.test/kind/node:v1.37.2-0123456789',
    'localhost:5001/devpkg/registry_mirror:2',
    'Mirror.Example.com:443/library/registry',
  ])('%s is an image reference', (ref) => expect(checkImageReference(ref, 'input registry-image')).toBe(ref));
  test.each([
    ['UPPER/Case:bad tag', 'it contains a space'],
    ['UPPER/Case:3', 'repository path "UPPER/Case" must be lowercase'],
    ['registry:3@sha256:abc', '"sha256:abc" is not sha256:<64 lowercase hex digits>'],
    ['registry:-3', 'tag "-3" holds characters a tag cannot'],
    ['', 'it is empty'],
  ])('%j is refused: %s', (ref, why) => expect(() => checkImageReference(ref, 'input registry-image')).toThrow(`input registry-image: "${ref}" is not an image reference (${why})`));
});

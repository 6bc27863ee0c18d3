import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DevpkgError } from '../errors.js';
import { DERIVED_FROM_ANNOTATION, deriveDevPackage, devPackageToYaml, isToolMetadataKey, parseImageRef, withMetadataYaml } from './derive.js';
import { parsePackageFile, type Package } from './model.js';

const DIGEST = `sha256:${'c'.repeat(64)}`;
const IMAGE = `10.89.0.2:5000/devpkg/antrea@${DIGEST}`;
const fixture = () => readFileSync(new URL('./testdata/antrea-from-cluster.yaml', import.meta.url), 'utf8');

function basePackage(): Package {
  return {
    apiVersion: 'data.packaging.carvel.dev/v1alpha1',
    kind: 'Package',
    metadata: { name: 'pkg.test.carvel.dev.1.0.0' },
    spec: {
      refName: 'pkg.test.carvel.dev',
      version: '1.0.0',
      template: { spec: { fetch: [{ imgpkgBundle: { image: `example.com/pkg@sha256:${'a'.repeat(64)}` } }], deploy: [{ kapp: {} }] } },
    },
  };
}

describe('deriveDevPackage', () => {
  test('a Package read back from a cluster: exact output', () => {
    const res = parsePackageFile(fixture(), 'antrea-from-cluster.yaml');
    const before = structuredClone(res.pkg);
    const out = deriveDevPackage(res, { version: '1.5.3+vmware.1-tkg.2-dev.42.1', image: IMAGE });
    expect(out.imagePinned).toBe(true);
    expect(out.derivedFrom).toBe('antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1');
    expect(res.pkg).toEqual(before); // the input is not modified
    expect(devPackageToYaml(out.pkg)).toBe(`apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.2-dev.42.1
  namespace: tkg-system
  annotations:
    devpkg.dev/derived-from: antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1
spec:
  licenses:
  - Apache 2.0
  refName: antrea.tanzu.vmware.com
  releasedAt: "2022-03-03T00:00:00Z"
  template:
    spec:
      deploy:
      - kapp:
          rawOptions:
          - --wait-timeout=30s
          - --kube-api-qps=20
          - --kube-api-burst=30
      fetch:
      - imgpkgBundle:
          image: 10.89.0.2:5000/devpkg/antrea@sha256:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc
      template:
      - ytt:
          paths:
          - config/
      - kbld:
          paths:
          - "-"
          - .imgpkg/images.yml
  valuesSchema:
    openAPIv3:
      properties:
        antrea:
          properties:
            config:
              properties:
                noSNAT:
                  default: false
                  description: Flag to enable/disable SNAT
                  type: boolean
                trafficEncapMode:
                  default: encap
                  description: "The traffic encapsulation mode: #encap, noEncap, hybrid"
                  type: string
              type: object
          type: object
        infraProvider:
          default: vsphere
          description: The cloud provider in use. One of the following options => aws, azure, vsphere, docker
          type: string
      title: antrea.tanzu.vmware.com.1.5.3+vmware.1-tkg.1 values schema
  version: 1.5.3+vmware.1-tkg.2-dev.42.1
`);
  });

  test('strips every runtime and tool field, keeps the rest', () => {
    const pkg = basePackage();
    Object.assign(pkg.metadata, {
      namespace: 'default',
      uid: 'u',
      resourceVersion: '1',
      creationTimestamp: '2022-01-01T00:00:00Z',
      generation: 3,
      managedFields: [{ manager: 'kubectl' }],
      ownerReferences: [{ kind: 'App', name: 'x' }],
      finalizers: ['f'],
      selfLink: '/apis/x',
      deletionTimestamp: '2022-01-02T00:00:00Z',
      deletionGracePeriodSeconds: 0,
      labels: { 'kapp.k14s.io/app': '1', 'kapp.k14s.io/association': 'v1.x', 'packaging.carvel.dev/package-repository-x': 'y', team: 'net' },
      annotations: {
        'kapp.k14s.io/identity': 'v1;x',
        'kapp.k14s.io/original': '{}',
        'kubectl.kubernetes.io/last-applied-configuration': '{}',
        'packaging.carvel.dev/package-repository-ref': 'tkg-system/tanzu-core',
        'packaging.carvel.dev/revision': '1.0',
        note: 'keep me',
      },
    });
    pkg.status = { observedGeneration: 1 };
    pkg.spec.releasedAt = null;
    const out = deriveDevPackage(pkg, { version: '1.0.1-dev.1', image: IMAGE }).pkg;
    expect(out).toEqual({
      apiVersion: 'data.packaging.carvel.dev/v1alpha1',
      kind: 'Package',
      metadata: {
        name: 'pkg.test.carvel.dev.1.0.1-dev.1',
        namespace: 'default',
        labels: { team: 'net' },
        annotations: { 'packaging.carvel.dev/revision': '1.0', note: 'keep me', [DERIVED_FROM_ANNOTATION]: 'pkg.test.carvel.dev.1.0.0' },
      },
      spec: {
        refName: 'pkg.test.carvel.dev',
        version: '1.0.1-dev.1',
        template: { spec: { fetch: [{ imgpkgBundle: { image: IMAGE } }], deploy: [{ kapp: {} }] } },
        releasedAt: null,
      },
    });
  });

  test.each([
    [undefined, undefined, undefined],
    ['tkg-system', undefined, 'tkg-system'],
    [undefined, 'default', 'default'],
    ['tkg-system', 'default', 'tkg-system'],
  ])('namespace option %j over original %j gives %j', (option, original, expected) => {
    const pkg = basePackage();
    if (original) pkg.metadata.namespace = original;
    const out = deriveDevPackage(pkg, { version: '1.0.1', image: IMAGE, namespace: option }).pkg;
    expect(out.metadata.namespace).toBe(expected);
    expect(Object.keys(out.metadata)[0]).toBe('name');
    if (expected) expect(Object.keys(out.metadata)[1]).toBe('namespace');
  });

  test('refName option renames the Package to the cluster refName', () => {
    const out = deriveDevPackage(basePackage(), { version: '1.0.1', image: IMAGE, refName: 'pkg.tanzu.vmware.com' }).pkg;
    expect(out.metadata.name).toBe('pkg.tanzu.vmware.com.1.0.1');
    expect(out.spec.refName).toBe('pkg.tanzu.vmware.com');
  });

  test('a tag is refused unless allowed, and then flagged', () => {
    expect(() => deriveDevPackage(basePackage(), { version: '1.0.1', image: 'localhost:5000/pkg:1.0.1' })).toThrow(
      /bundle image "localhost:5000\/pkg:1.0.1" is referenced by tag; a dev Package must pin its bundle by digest/,
    );
    const out = deriveDevPackage(basePackage(), { version: '1.0.1', image: 'localhost:5000/pkg:1.0.1', allowTag: true });
    expect(out.imagePinned).toBe(false);
    expect(out.pkg.spec.template?.spec?.fetch?.[0]?.imgpkgBundle?.image).toBe('localhost:5000/pkg:1.0.1');
  });

  test.each([
    [{ version: 'v1.0.1', image: IMAGE }, /dev version "v1.0.1" must be strict semver without a leading "v"/],
    [{ version: '1.0', image: IMAGE }, /dev version "1.0" is not a semver version/],
    [{ version: '1.0.1', image: 'localhost:5000/pkg' }, /bundle image "localhost:5000\/pkg" is not an image reference; use repo@sha256:<64 hex digits>/],
    [{ version: '1.0.1', image: 'localhost:5000/pkg@sha256:abc' }, /is not an image reference/],
    [{ version: '1.0.1', image: IMAGE, refName: 'pkg.tanzu' }, /ref-name "pkg.tanzu" is not a valid refName/],
  ])('rejects %j', (opts, message) => {
    const err = (() => {
      try {
        deriveDevPackage(basePackage(), opts);
      } catch (e) {
        return e as DevpkgError;
      }
      throw new Error('expected an error');
    })();
    expect(err).toBeInstanceOf(DevpkgError);
    expect(err.message).toMatch(message);
    expect(err.exitCode).toBe(2);
  });

  test.each([
    ['no imgpkgBundle', [{ git: { url: 'https://github.com/x/y' } }, { http: { url: 'https://x' } }], /must fetch exactly one imgpkgBundle in spec.template.spec.fetch \(found only git, http\)/],
    ['two imgpkgBundles', [{ imgpkgBundle: { image: 'a/b:c' } }, { imgpkgBundle: { image: 'a/c:d' } }], /\(found 2 imgpkgBundle fetches\)/],
    ['no fetch', undefined, /\(found no fetch at all\)/],
  ])('%s: names the Package and the field', (_what, fetch, message) => {
    const pkg = basePackage();
    pkg.spec.template!.spec!.fetch = fetch as never;
    expect(() => deriveDevPackage(pkg, { version: '1.0.1', image: IMAGE })).toThrow(message);
    expect(() => deriveDevPackage(pkg, { version: '1.0.1', image: IMAGE })).toThrow(/Package pkg.test.carvel.dev.1.0.0 must fetch/);
  });

  test('errors on a parsed file point at the fetch line', () => {
    const text = `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: pkg.test.carvel.dev.1.0.0
spec:
  refName: pkg.test.carvel.dev
  version: 1.0.0
  template:
    spec:
      fetch:
      - git:
          url: https://github.com/x/y
`;
    const res = parsePackageFile(text, 'p/package.yaml');
    const err = (() => {
      try {
        deriveDevPackage(res, { version: '1.0.1', image: IMAGE });
      } catch (e) {
        return e as DevpkgError;
      }
      throw new Error('expected an error');
    })();
    expect([err.file, err.line]).toEqual(['p/package.yaml', 10]);
  });
});

describe('parseImageRef', () => {
  test.each([
    [`registry.example.com/tce/antrea@${DIGEST}`, { repository: 'registry.example.com/tce/antrea', digest: DIGEST }],
    [`10.89.0.2:5000/devpkg/antrea@${DIGEST}`, { repository: '10.89.0.2:5000/devpkg/antrea', digest: DIGEST }],
    [`localhost:5000/a/b:1.0.1_vmware.1@${DIGEST}`, { repository: 'localhost:5000/a/b', tag: '1.0.1_vmware.1', digest: DIGEST }],
    ['localhost:5000/pkg:1.0.1', { repository: 'localhost:5000/pkg', tag: '1.0.1' }],
    ['antrea:1.0', { repository: 'antrea', tag: '1.0' }],
    ['localhost:5000/pkg', undefined],
    ['localhost:5000/pkg:1.0.1+vmware.1', undefined],
    [`localhost:5000/Pkg@${DIGEST}`, undefined],
    [`pkg@sha256:${'A'.repeat(64)}`, undefined],
    ['', undefined],
  ])('%s', (image, expected) => {
    expect(parseImageRef(image)).toEqual(expected);
  });
});

describe('isToolMetadataKey', () => {
  test.each([
    ['kapp.k14s.io/identity', true],
    ['kapp.k14s.io/app', true],
    ['kubectl.kubernetes.io/last-applied-configuration', true],
    ['packaging.carvel.dev/package-repository-ref', true],
    ['packaging.carvel.dev/revision', false],
    ['app.kubernetes.io/name', false],
  ])('%s -> %s', (key, tool) => {
    expect(isToolMetadataKey(key)).toBe(tool);
  });
});

describe('devPackageToYaml', () => {
  test('quotes what YAML 1.1 readers (kubectl, ytt) would not read as a string, and round-trips', () => {
    const pkg = basePackage();
    pkg.metadata.labels = { enabled: 'yes', mode: 'on', perm: '0755', hash: '#@ x', n: 'n' };
    pkg.spec.releaseNotes = 'line one\nline two # not a comment\n';
    const text = devPackageToYaml(pkg);
    expect(text).toContain(`  labels:
    enabled: "yes"
    mode: "on"
    perm: "0755"
    hash: "#@ x"
    "n": "n"
`);
    expect(text).toContain(`  releaseNotes: |
    line one
    line two # not a comment
`);
    expect(parse(text)).toEqual(pkg);
    expect(parse(text, { version: '1.1' })).toEqual(pkg);
  });
});

describe('withMetadataYaml', () => {
  const shared = { a: 1 };
  // Each case: a Package (built from basePackage) and the metadata to put in its place.
  const cases: [string, (p: Package) => Package, Package['metadata']][] = [
    ['namespace added after the name', (p) => p, { name: 'x.test.1.0.0', namespace: 'tkg-system' }],
    ['the same metadata', (p) => p, basePackage().metadata],
    ['metadata first', ({ metadata, ...rest }) => ({ metadata, ...rest }) as Package, { name: 'n', namespace: 'ns', labels: { a: 'b' } }],
    ['metadata last', ({ metadata, ...rest }) => ({ ...rest, metadata }) as Package, { name: 'n', namespace: 'ns' }],
    [
      'a block scalar in spec holding a metadata: line',
      (p) => ({ ...p, spec: { ...p.spec, releaseNotes: 'x\nmetadata:\n  name: n\n' } }),
      { name: 'n', namespace: 'ns' },
    ],
    ['an empty metadata', (p) => ({ ...p, metadata: {} as Package['metadata'] }), { namespace: 'ns' } as Package['metadata']],
    ['an object in metadata and spec (anchors)', (p) => ({ ...p, metadata: { ...p.metadata, labels: shared as never }, spec: { ...p.spec, extra: shared } }), { name: 'n', labels: shared as never }],
    ['an object twice in metadata, the first anchor after spec', ({ metadata, ...rest }) => ({ ...rest, spec: { ...rest.spec, one: shared, two: shared }, metadata: { ...metadata, labels: { x: shared, y: shared } as never } }) as Package, { name: 'n', labels: { x: shared, y: shared } as never }],
    ['an object of spec new in metadata (anchors)', (p) => ({ ...p, spec: { ...p.spec, extra: shared } }), { name: 'n', labels: shared as never }],
    ['an object twice in spec (anchors)', (p) => ({ ...p, spec: { ...p.spec, one: shared, two: shared } }), { name: 'n', namespace: 'ns' }],
  ];
  test.each(cases)('the same text as rendering the whole: %s', (_name, make, metadata) => {
    const pkg = make(basePackage());
    expect(withMetadataYaml(pkg, devPackageToYaml(pkg), metadata)).toBe(devPackageToYaml({ ...pkg, metadata }));
  });
});

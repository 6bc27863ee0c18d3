import { DevpkgError } from '../errors.js';
import { lineOf, parsePackageFile, parsePackageMetadataFile, refNameProblem, unclosedOpening, versionProblem } from './model.js';

const GOOD = `apiVersion: data.packaging.carvel.dev/v1alpha1
kind: Package
metadata:
  name: antrea.tanzu.vmware.com.1.5.3+vmware.1
spec:
  refName: antrea.tanzu.vmware.com
  version: 1.5.3+vmware.1
  template:
    spec:
      fetch:
      - imgpkgBundle:
          image: example.com/antrea@sha256:${'a'.repeat(64)}
`;

function parseError(text: string): DevpkgError {
  try {
    parsePackageFile(text, 'pkg/package.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(DevpkgError);
    return err as DevpkgError;
  }
  throw new Error('expected parsePackageFile to throw');
}

describe('parsePackageFile', () => {
  test('reads a Package and the lines of its fields', () => {
    const res = parsePackageFile(GOOD, 'pkg/package.yaml');
    expect(res.file).toBe('pkg/package.yaml');
    expect(res.pkg.metadata.name).toBe('antrea.tanzu.vmware.com.1.5.3+vmware.1');
    expect(res.pkg.spec.version).toBe('1.5.3+vmware.1');
    expect(res.pkg.spec.template?.spec?.fetch?.[0]?.imgpkgBundle?.image).toMatch(/@sha256:a{64}$/);
    expect(lineOf(res, 'metadata.name')).toBe(4);
    expect(lineOf(res, 'spec.version')).toBe(7);
    expect(lineOf(res, 'spec.template.spec.fetch')).toBe(10);
    expect(lineOf(res, 'spec.template.spec.fetch.0.imgpkgBundle.image')).toBe(12);
    // A path that is not in the file falls back to its closest ancestor.
    expect(lineOf(res, 'spec.template.spec.deploy')).toBe(9);
  });

  test('tolerates empty documents and other kinds around the one Package', () => {
    const text = `---\n# a comment only\n---\napiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: antrea.tanzu.vmware.com\n---\n${GOOD}---\n`;
    const res = parsePackageFile(text, 'p.yaml');
    expect(res.pkg.kind).toBe('Package');
    expect(lineOf(res, 'spec.version')).toBe(15);
  });

  test.each([
    ['YAML syntax', GOOD.replace('refName: antrea.tanzu.vmware.com', 'refName: antrea: tanzu'), 6, /YAML syntax error \(BLOCK_AS_IMPLICIT_KEY\): Nested mappings are not allowed in compact mappings; fix the YAML at this line/],
    ['unclosed flow sequence', GOOD.replace('  refName: antrea.tanzu.vmware.com', '  refName: [antrea.tanzu.vmware.com'), 6, /YAML syntax error \(BAD_INDENT\): Flow sequence in block collection must be sufficiently indented and end with a \]; the \[ opened at this line is never closed/],
    ['unclosed flow map', GOOD.replace('  refName: antrea.tanzu.vmware.com', '  refName: {a: [b], c: d'), 6, /Flow map in block collection .* end with a \}; the \{ opened at this line is never closed/],
    ['unclosed quote', GOOD.replace('  refName: antrea.tanzu.vmware.com', '  refName: "antrea.tanzu.vmware.com'), 6, /YAML syntax error \(MISSING_CHAR\): Missing closing "quote.*; the " opened at this line is never closed/],
    ['duplicate key', GOOD.replace('  version: 1.5.3+vmware.1\n', '  version: 1.5.3+vmware.1\n  version: 1.5.4\n'), 8, /YAML syntax error \(DUPLICATE_KEY\)/],
    ['another kind', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n', 2, /not a Package: pkg\/package.yaml holds kind "ConfigMap" \(apiVersion "v1"\); expected apiVersion data.packaging.carvel.dev\/v1alpha1, kind Package/],
    ['empty file', '\n', 1, /no Package in pkg\/package.yaml: the file is empty/],
    ['two Packages', `${GOOD}---\n${GOOD.replaceAll('1.5.3', '1.5.4')}`, 15, /holds 2 Packages \(antrea.tanzu.vmware.com.1.5.3\+vmware.1, antrea.tanzu.vmware.com.1.5.4\+vmware.1\); put one Package per package.yaml/],
    ['wrong apiVersion', GOOD.replace('data.packaging.carvel.dev/v1alpha1', 'packaging.carvel.dev/v1alpha1'), 1, /apiVersion is "packaging.carvel.dev\/v1alpha1"; write apiVersion: data.packaging.carvel.dev\/v1alpha1/],
    ['no spec', 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: x\n', 1, /has no spec; add spec.refName and spec.version/],
    ['missing refName', GOOD.replace('  refName: antrea.tanzu.vmware.com\n', ''), 5, /spec.refName is missing; add spec.refName/],
    ['refName too short', GOOD.replace('refName: antrea.tanzu.vmware.com', 'refName: antrea.tanzu'), 6, /spec.refName "antrea.tanzu" is not a valid refName: .*at least three parts/],
    ['missing version', GOOD.replace('  version: 1.5.3+vmware.1\n', ''), 5, /spec.version is missing; add spec.version/],
    ['leading v', GOOD.replace('version: 1.5.3', 'version: v1.5.3'), 7, /spec.version "v1.5.3\+vmware.1" must be strict semver without a leading "v"; write 1.5.3\+vmware.1/],
    ['number', GOOD.replace('version: 1.5.3+vmware.1', 'version: 1.5'), 7, /spec.version must be a string, not the number 1.5; quote it/],
    ['not semver', GOOD.replace('version: 1.5.3+vmware.1', 'version: 1.5.x'), 7, /spec.version "1.5.x" is not a semver version/],
    ['leading zero', GOOD.replace('version: 1.5.3+vmware.1', 'version: 1.05.3'), 7, /spec.version "1.05.3" is not a semver version/],
    ['missing name', GOOD.replace('  name: antrea.tanzu.vmware.com.1.5.3+vmware.1\n', '  namespace: x\n'), 3, /metadata.name is missing; add metadata.name: antrea.tanzu.vmware.com.1.5.3\+vmware.1/],
    ['labels not a map', GOOD.replace('metadata:\n', 'metadata:\n  labels: [a]\n'), 4, /metadata.labels must be a map/],
  ])('%s: error names the field, file and line', (_what, text, line, message) => {
    const err = parseError(text);
    expect(err.message).toMatch(message);
    expect(err.file).toBe('pkg/package.yaml');
    expect(err.line).toBe(line);
  });
});

describe('parsePackageFile warnings', () => {
  test('a metadata.name that is not refName.version is a warning with file and line, not an error', () => {
    const res = parsePackageFile(GOOD.replace('name: antrea.tanzu.vmware.com.1.5.3+vmware.1', 'name: antrea.tanzu.vmware.com.1.5.3'), 'pkg/package.yaml');
    expect(res.pkg.spec.version).toBe('1.5.3+vmware.1');
    expect(res.warnings).toEqual([
      {
        path: 'pkg/package.yaml',
        line: 4,
        severity: 'warning',
        message: expect.stringMatching(/^Package metadata.name "antrea.tanzu.vmware.com.1.5.3" is not spec.refName \+ "." \+ spec.version; .*write name: antrea.tanzu.vmware.com.1.5.3\+vmware.1/),
      },
    ]);
  });

  test('a consistent Package has no warnings', () => {
    expect(parsePackageFile(GOOD, 'pkg/package.yaml').warnings).toEqual([]);
  });
});

describe('versionProblem / refNameProblem', () => {
  test.each([
    ['1.5.3', undefined],
    ['1.5.3+vmware.1-tkg.1', undefined],
    ['0.24.4+update.2', undefined],
    ['1.5.4-dev.20260101120000', undefined],
    ['v1.5.3', /leading "v"/],
    ['=1.5.3', /leading "="/],
    [' 1.5.3', /not a semver/],
    ['1.5', /not a semver/],
    ['', /not a semver/],
  ])('version %j', (v, problem) => {
    const p = versionProblem(v);
    if (problem === undefined) expect(p).toBeUndefined();
    else expect(p).toMatch(problem);
  });

  test.each([
    ['antrea.tanzu.vmware.com', true],
    ['antrea.community.tanzu.vmware.com', true],
    ['pkg.test.carvel.dev', true],
    ['antrea.vmware', false],
    ['Antrea.tanzu.vmware.com', false],
    ['antrea_x.tanzu.vmware.com', false],
  ])('refName %s valid=%s', (name, ok) => {
    expect(refNameProblem(name) === undefined).toBe(ok);
  });
});

describe('parsePackageMetadataFile', () => {
  test('reads a PackageMetadata', () => {
    const md = parsePackageMetadataFile('apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: PackageMetadata\nmetadata:\n  name: antrea.tanzu.vmware.com\nspec:\n  displayName: antrea\n', 'm.yaml');
    expect(md.metadata.metadata.name).toBe('antrea.tanzu.vmware.com');
    expect(md.metadata.spec?.displayName).toBe('antrea');
  });
  test('rejects a Package', () => {
    expect(() => parsePackageMetadataFile(GOOD, 'm.yaml')).toThrow(/m.yaml holds no PackageMetadata \(it holds kind "Package"/);
  });
});

describe('unclosedOpening', () => {
  const seq = 'Flow sequence in block collection must be sufficiently indented and end with a ]';
  test.each([
    ['the unmatched [ past closed ones', 'a: [x, [y], {z: 1}\nb: 2\n', 19, seq, 3],
    ['the innermost unmatched [', 'a: [1]\nb: [2, [3\nc: 4\n', 17, seq, 14],
    ['a flow map', 'a: {x: [1]\nb: 2\n', 11, 'Flow map in block collection must be sufficiently indented and end with a }', 3],
    ['a double quote', 'a: "x\nb: 2\n', 10, 'Missing closing "quote', 3],
    ["a single quote", "a: 'x\n", 6, "Missing closing 'quote", 3],
    ['no opener before the error', 'a: x]\n', 5, seq, undefined],
    ['another error', 'a: [1\n', 5, 'Nested mappings are not allowed in compact mappings', undefined],
  ])('%s', (_what, text, pos, message, expected) => {
    expect(unclosedOpening(text, pos, message)).toBe(expected);
  });
});

describe('the lines of a parsed Package (collected on first use)', () => {
  const text = 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: a.b.c.1.0.0\nspec:\n  refName: a.b.c\n  version: 1.0.0\n  template:\n    spec:\n      fetch:\n      - imgpkgBundle:\n          image: r/x@sha256:0\n';
  test('read as a plain record: every path with its line', () => {
    const res = parsePackageFile(text, 'p.yaml');
    expect({ ...res.lines }).toEqual({
      '': 1,
      apiVersion: 1,
      kind: 2,
      metadata: 3,
      'metadata.name': 4,
      spec: 5,
      'spec.refName': 6,
      'spec.version': 7,
      'spec.template': 8,
      'spec.template.spec': 9,
      'spec.template.spec.fetch': 10,
      'spec.template.spec.fetch.0': 11,
      'spec.template.spec.fetch.0.imgpkgBundle': 11,
      'spec.template.spec.fetch.0.imgpkgBundle.image': 12,
    });
    expect('spec.version' in res.lines).toBe(true);
    expect(lineOf(res, 'spec.template.spec.fetch.0.imgpkgBundle.image')).toBe(12);
    expect(lineOf(res, 'spec.nothing.here')).toBe(5);
  });
});

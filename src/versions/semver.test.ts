import semver from 'semver';
import { compareVersions, formatVersion, parseStrict, parseTolerant, parseVersion } from './semver.js';

describe('parseVersion (vendir NewRelaxedSemver)', () => {
  test.each([
    ['1.2.3', '1.2.3'],
    ['v1.2.3', '1.2.3'],
    ['0.0.0', '0.0.0'],
    ['1.2.3-rc.1', '1.2.3-rc.1'],
    ['1.2.3-rc-1.x', '1.2.3-rc-1.x'],
    ['1.5.3+vmware.1-tkg.1', '1.5.3+vmware.1-tkg.1'],
    ['0.24.4+update.2', '0.24.4+update.2'],
    ['1.0.0-0.3.7', '1.0.0-0.3.7'],
    // build metadata may have leading zeros (carvel keeps them as written)
    ['1.0.0+001', '1.0.0+001'],
    ['18446744073709551615.0.0', '18446744073709551615.0.0'],
  ])('%s parses', (input, canonical) => {
    const v = parseVersion(input);
    expect(v).toBeDefined();
    expect(v?.original).toBe(input);
    expect(formatVersion(v!)).toBe(canonical);
  });

  test.each([
    ['01.2.3', /Major number must not contain leading zeroes "01"/],
    ['1.02.3', /Minor number must not contain leading zeroes/],
    ['1.2.03', /Patch number must not contain leading zeroes/],
    ['1.2.3-01', /Numeric PreRelease version must not contain leading zeroes "01"/],
    ['vv1.2.3', /Invalid character\(s\) found in major number "v1"/],
    ['V1.2.3', /major number "V1"/],
    ['1.2', /No Major.Minor.Patch elements found/],
    ['1.2.3.4', /patch number "3.4"/],
    ['', /Version string empty/],
    [' 1.2.3', /major number " 1"/],
    ['1.2.3-', /PreRelease is empty/],
    ['1.2.3+', /BuildMeta is empty/],
    ['1.2.3-a..b', /PreRelease is empty/],
    ['1.2.3-é', /Invalid character\(s\) found in PreRelease/],
    ['1.2.3+a_b', /Invalid character\(s\) found in BuildMeta/],
    ['18446744073709551616.0.0', /value out of range/],
    ['1.0.0-18446744073709551616', /value out of range/],
    ['.1.2', /parsing "": invalid syntax/],
  ])('%s does not parse', (input, reason) => {
    expect(parseVersion(input)).toBeUndefined();
    const r = parseStrict(input.startsWith('v') ? input.slice(1) : input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(reason);
  });

  test('the strict parse (Package.spec.version) refuses a leading v', () => {
    expect(parseStrict('v1.2.3').ok).toBe(false);
  });
});

describe('parseTolerant (cluster and kapp-controller versions)', () => {
  test.each([
    ['v1.24.9+vmware.1', '1.24.9+vmware.1'],
    [' v1.24.9 ', '1.24.9'],
    ['1.24', '1.24.0'],
    ['1', '1.0.0'],
    ['01.02.03', '1.2.3'],
    ['v0.41.2', '0.41.2'],
    ['1.00.0', '1.0.0'],
  ])('%s -> %s', (input, out) => {
    const r = parseTolerant(input);
    expect(r.ok && formatVersion(r.version)).toBe(out);
  });
  test.each([['1.24-rc.1'], ['develop'], ['']])('%s fails', (input) => {
    expect(parseTolerant(input).ok).toBe(false);
  });
});

describe('compareVersions (carvel semver v4: build metadata counts)', () => {
  test.each([
    // [lower, higher]
    ['0.13.3-dev', '0.13.3+vmware.1-tkg.1'],
    ['0.13.3+vmware.1-tkg.1', '0.13.4-dev.1'],
    ['0.13.3-dev', '0.13.4-dev.1'],
    ['1.0.0', '1.0.0+1'], // no build < some build
    ['1.0.0+1', '1.0.0+2'],
    ['1.0.0+2', '1.0.0+10'], // numbers by value
    ['1.0.0+10', '1.0.0+ab1'], // numeric < alphanumeric
    ['1.0.0+ab1', '1.0.0+ab1.foo'], // longer list wins when a prefix
    ['1.0.0+ab1.foo', '1.0.0+z1'],
    ['1.5.3+vmware.10-tkg.1', '1.5.3+vmware.9-tkg.1'], // "10-tkg" vs "9-tkg" are alphanumeric: byte-wise
    ['1.5.3+vmware.1', '1.5.3+vmware.1-tkg.1'],
    ['1.0.0+Z', '1.0.0+a'], // byte order: upper case first
    ['1.0.0-pre+foo', '1.0.0'],
    ['1.0.0-alpha', '1.0.0-alpha.1'],
    ['1.0.0-alpha.1', '1.0.0-alpha.beta'],
    ['1.0.0-beta.2', '1.0.0-beta.11'],
    ['1.0.0-rc.1', '1.0.0-rc.1+build'],
    ['2.0.0-10', '2.0.0-10+meta.10'],
    ['9.9.9', '10.0.0'],
    ['1.0.0-dev.5.1', '1.0.0-dev.6.1'],
    ['1.0.0-dev.9.1', '1.0.0-dev.10.1'],
    ['1.0.0-dev.6.1', '1.0.0-dev.20261129000000'],
    ['18446744073709551614.0.0', '18446744073709551615.0.0'],
  ])('%s < %s', (lo, hi) => {
    expect(compareVersions(lo, hi)).toBe(-1);
    expect(compareVersions(hi, lo)).toBe(1);
  });

  test.each([
    ['1.0.0', 'v1.0.0'],
    ['1.0.0+01', '1.0.0+1'], // numeric build identifiers compare by value
    ['1.0.0-rc.1+b', 'v1.0.0-rc.1+b'],
  ])('%s == %s', (a, b) => {
    expect(compareVersions(a, b)).toBe(0);
  });

  test('an unparsable version throws', () => {
    expect(() => compareVersions('01.0.0', '1.0.0')).toThrow(/"01.0.0" is not a semver version/);
  });

  // npm semver's compareBuild agrees on ordinary versions (it is the documented reference).
  const sample = [
    '0.13.3-dev', '0.13.3+vmware.1-tkg.1', '0.13.4-dev.1', '1.0.0', '1.0.0+1', '1.0.0+2', '1.0.0+ab1',
    '1.0.0+ab1.foo', '1.0.0+z1', '1.0.0-pre+foo', '1.5.3+vmware.9-tkg.1', '1.5.3+vmware.10-tkg.1',
    '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-beta.11', '2.0.0-10+meta.10', '2.0.0',
  ];
  test('agrees with npm semver.compareBuild on a sample', () => {
    for (const a of sample) {
      for (const b of sample) {
        expect([a, b, compareVersions(a, b)]).toEqual([a, b, semver.compareBuild(a, b)]);
      }
    }
  });
});

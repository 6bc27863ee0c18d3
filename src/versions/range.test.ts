import { DevpkgError } from '../errors.js';
import { exactVersionsOf, parseConstraints, satisfies } from './range.js';

describe('satisfies (carvel semver v4 ranges)', () => {
  test.each([
    // constraint, version, expected
    ['>=1.0.0 <2.0.0', '1.5.0', true],
    ['>=1.0.0 <2.0.0', '2.0.0', false],
    ['>=1.0.0 <2.0.0', '0.9.9', false],
    // prereleases and build metadata take part in comparisons
    ['>=1.0.0 <1.1.0', '1.1.0-rc.1', true],
    ['>=1.0.0 <1.1.0', '1.0.0-rc.1', false],
    ['>=1.0.0 <1.1.0', '1.0.5+vmware.1', true],
    ['<=1.0.0', '1.0.0+build', false],
    ['>1.0.0', '1.0.0+build', true],
    ['=1.0.0', '1.0.0+build', false],
    ['1.0.0', 'v1.0.0', true],
    ['==1.0.0', '1.0.0', true],
    ['1.5.3+vmware.1-tkg.1', '1.5.3+vmware.1-tkg.1', true],
    ['1.5.3+vmware.1-tkg.1', '1.5.3', false],
    ['>1.5.3+vmware.10-tkg.1', '1.5.3+vmware.9-tkg.1', true],
    // != and !
    ['!=1.2.3', '1.2.3', false],
    ['!=1.2.3', '1.2.4', true],
    ['!1.2.3', '1.2.3', false],
    ['>=1.0.0 !=1.2.3', '1.2.3', false],
    // ||
    ['<1.0.0 || >=2.0.0', '1.5.0', false],
    ['<1.0.0 || >=2.0.0', '2.0.0', true],
    ['<1.0.0 || >=2.0.0', '0.1.0', true],
    ['>1.0.0 <2.0.0 || >3.0.0 !4.2.1', '4.2.1', false],
    ['>1.0.0 <2.0.0 || >3.0.0 !4.2.1', '3.1.1', true],
    // a space after an operator
    ['>= 1.0.0 < 2.0.0', '1.5.0', true],
    ['>= 1.0.0 < 2.0.0', '2.0.0', false],
    ['> =1.0.0', '1.0.0', true],
    ['  >=1.0.0   <2.0.0  ', '1.0.0', true],
    // lowercase x wildcards
    ['1.2.x', '1.2.0', true],
    ['1.2.x', '1.2.99', true],
    ['1.2.x', '1.3.0', false],
    ['1.2.x', '1.3.0-rc.1', true], // <1.3.0 admits its prereleases
    ['1.2.x', '1.2.0-rc.1', false],
    ['1.x', '1.9.0', true],
    ['1.x', '2.0.0', false],
    ['>1.2.x', '1.3.0', true],
    ['>1.2.x', '1.2.9', false],
    ['<=1.2.x', '1.2.9', true],
    ['<=1.2.x', '1.3.0', false],
    ['<1.2.x', '1.1.9', true],
    ['<1.2.x', '1.2.0', false],
    ['>=1.2.x', '1.2.0', true],
    // "!=1.2.x" expands to "<1.2.0 >=1.3.0", AND-ed: it matches nothing
    ['!=1.2.x', '1.2.5', false],
    ['!=1.2.x', '1.3.0', false],
    ['!=1.2.x', '1.1.0', false],
    // quirks of this carvel semver version
    ['1.x.x', '1.0.5', true],
    ['1.x.x', '1.1.0', false], // "1.x.x" means >=1.0.0 <1.1.0
    ['~1.2.x', '1.2.0', true], // an unknown operator in a wildcard term is dropped: =1.2.0
    ['~1.2.x', '1.2.1', false],
    ['>=1.0.0-next', '1.0.0', true], // an x in a prerelease goes through wildcard expansion harmlessly here
    ['>=1.0.0 a', '1.0.0', true], // one-character terms are dropped
  ])('%s matches %s: %s', (constraint, version, expected) => {
    expect(satisfies(version, constraint)).toBe(expected);
    expect(satisfies(version, parseConstraints(constraint))).toBe(expected);
  });

  test('an unparsable version satisfies nothing', () => {
    expect(satisfies('01.0.0', '>=0.0.0')).toBe(false);
  });
});

describe('parseConstraints errors name the constraint', () => {
  test.each([
    ['>=1.0 <2.0.0', /"1.0" in ">=1.0": No Major.Minor.Patch elements found/],
    ['1.2.X', /Could not parse version "1.2.X"/],
    ['1.2.*', /Could not parse version "1.2.\*"/],
    ['~1.2.3', /Could not parse comparator "~"/],
    ['^1.2.3', /Could not parse comparator "\^"/],
    ['>=v1.0.0', /Could not parse comparator ">=v"/],
    ['>=01.0.0', /leading zeroes/],
    ['|| 1.0.0', /First element in range is '\|\|'/],
    ['1.0.0 ||', /Last element in range is '\|\|'/],
    ['', /\(it is empty\).*Last element/],
    ['   ', /\(it is empty\)/],
    ['1', /Last element in range/], // the one-character term is dropped, leaving nothing
    ['>=1.0.0||<0.5.0', /Could not parse version "1.0.0\|\|<0.5.0"/],
    ['>=1.0.0\t<2.0.0', /Could not parse version/],
    ['1.0.0-fix.1', /Could not get version from string: "<"/], // the x in "fix" triggers wildcard expansion
    ['1.0.0 || || 2.0.0', /empty alternative/],
    ['abc', /Could not get version from string: "abc"/],
  ])('%s', (text, reason) => {
    let err: unknown;
    try {
      parseConstraints(text);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DevpkgError);
    expect((err as Error).message).toContain(`cannot parse version constraint "${text}"`);
    expect((err as Error).message).toMatch(reason);
  });
});

describe('exactVersionsOf', () => {
  test.each([
    ['1.2.3', ['1.2.3']],
    ['=1.2.3+vmware.1 || ==1.3.0', ['1.2.3+vmware.1', '1.3.0']],
    ['>=1.2.3', undefined],
    ['1.2.x', undefined],
  ])('%s', (text, expected) => {
    const got = exactVersionsOf(parseConstraints(text));
    expect(got?.map((v) => v.original)).toEqual(expected);
  });
});

import { refNameProblem } from './model.js';
import { parseRefNameMap, targetRefName } from './refname.js';

describe('parseRefNameMap', () => {
  test.each([
    ['', 0, undefined],
    ['antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com', 1, undefined],
    ['a.example.com=b.example.com, c.example.com = d.example.com', 2, undefined],
    ['antrea.tanzu.vmware.com', 0, 'antrea.tanzu.vmware.com'],
  ])('%s', (text, pairs, bare) => {
    const m = parseRefNameMap(text);
    expect(m.pairs.size).toBe(pairs);
    expect(m.bare).toBe(bare);
  });

  test.each([
    ['antrea', /not a valid refName/],
    ['a.example.com=', /"" .*not a valid refName/],
    ['a.example.com,b.example.com', /more than one bare/],
    ['a.example.com=b.example.com,c.example.com', /mix of FROM=TO/],
    ['A.example.com=b.example.com', /"A.example.com"/],
    // Two labels pass a DNS-name check but not kapp-controller's rule (three), which every Package is held to.
    ['antrea.example', /^ref-name: "antrea.example" is not a valid refName: it must be a lower-case DNS name with at least three parts/],
    ['antrea.example=antrea.tanzu.vmware.com', /"antrea.example" is not a valid refName.*\(in "antrea.example=antrea.tanzu.vmware.com"\)/],
    ['a.example.com=antrea.example', /"antrea.example" is not a valid refName/],
    [`${'a'.repeat(250)}.example.com`, /not a valid refName/],
  ])('rejects %s', (text, msg) => {
    expect(() => parseRefNameMap(text)).toThrow(msg);
  });
});

test('the flag accepts exactly the refNames a Package may have (one rule)', () => {
  const names = ['antrea.tanzu.vmware.com', 'antrea.example', 'a.b.c', 'a-b.c-d.e', '-a.b.c', 'a.b.c.', 'A.b.c', 'a_b.c.d', 'a..b.c', `${'x'.repeat(63)}.b.c`, `${'x.'.repeat(126)}xy`];
  for (const name of names) {
    const flagOk = (() => {
      try {
        parseRefNameMap(name);
        return true;
      } catch {
        return false;
      }
    })();
    expect([name, flagOk]).toEqual([name, refNameProblem(name) === undefined]);
  }
  expect(names.filter((n) => refNameProblem(n) === undefined).length).toBeGreaterThan(2);
  expect(names.filter((n) => refNameProblem(n) !== undefined).length).toBeGreaterThan(2);
});

describe('targetRefName', () => {
  const map = parseRefNameMap('antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com');
  test('maps a listed refName and leaves others alone', () => {
    expect(targetRefName(map, 'antrea.community.tanzu.vmware.com', 2)).toBe('antrea.tanzu.vmware.com');
    expect(targetRefName(map, 'calico.community.tanzu.vmware.com', 2)).toBe('calico.community.tanzu.vmware.com');
  });
  test('a bare refName applies to a single package only', () => {
    const bare = parseRefNameMap('antrea.tanzu.vmware.com');
    expect(targetRefName(bare, 'x.example.com', 1)).toBe('antrea.tanzu.vmware.com');
    expect(() => targetRefName(bare, 'x.example.com', 2)).toThrow(/ambiguous/);
  });
});

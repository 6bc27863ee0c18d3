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
  ])('rejects %s', (text, msg) => {
    expect(() => parseRefNameMap(text)).toThrow(msg);
  });
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

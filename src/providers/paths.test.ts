import { tanzuPaths } from './paths.js';

describe('tanzuPaths', () => {
  test.each([
    [undefined, { tanzuDir: '/home/u/.config/tanzu', providersDir: '/home/u/.config/tanzu/tkg/providers' }],
    ['/home/u/.config/tanzu', { tanzuDir: '/home/u/.config/tanzu', providersDir: '/home/u/.config/tanzu/tkg/providers' }],
    ['/tmp/x/.config/tanzu', { tanzuDir: '/tmp/x/.config/tanzu', providersDir: '/tmp/x/.config/tanzu/tkg/providers', home: '/tmp/x' }],
    ['rel/.config/tanzu', { tanzuDir: '/w/rel/.config/tanzu', providersDir: '/w/rel/.config/tanzu/tkg/providers', home: '/w/rel' }],
  ])('%s', (dir, want) => expect(tanzuPaths(dir, { HOME: '/home/u' }, '/w')).toEqual(want));

  test('a folder the CLI cannot be pointed at is a usage error', () => {
    expect(() => tanzuPaths('/tmp/tanzu', { HOME: '/home/u' }, '/w')).toThrow(/must end in .config\/tanzu/);
  });
});

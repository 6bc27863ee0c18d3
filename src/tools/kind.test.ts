import { describe, expect, test } from '@jest/globals';
import { kindArgs, parseKindVersion } from './kind.js';

describe('kindArgs', () => {
  test.each<[string, string[], string[]]>([
    ['create, minimal', kindArgs.create({ name: 'devpkg' }), ['create', 'cluster', '--name', 'devpkg', '--wait', '120s']],
    [
      'create, everything',
      kindArgs.create({ name: 'd', image: 'kindest/node:v1.29.2', config: 'k.yaml', kubeconfig: '/tmp/kc', wait: '5m' }),
      ['create', 'cluster', '--name', 'd', '--image', 'kindest/node:v1.29.2', '--config', 'k.yaml', '--kubeconfig', '/tmp/kc', '--wait', '5m'],
    ],
    ['delete', kindArgs.delete('d'), ['delete', 'cluster', '--name', 'd']],
    ['delete with kubeconfig', kindArgs.delete('d', '/tmp/kc'), ['delete', 'cluster', '--name', 'd', '--kubeconfig', '/tmp/kc']],
    ['nodes', kindArgs.getNodes('d'), ['get', 'nodes', '--name', 'd']],
    ['internal kubeconfig', kindArgs.getKubeconfig('d', true), ['get', 'kubeconfig', '--name', 'd', '--internal']],
  ])('%s', (_n, got, want) => expect(got).toEqual(want));

  test.each([
    ['kind v0.22.0 go1.21.7 linux/amd64', '0.22.0'],
    ['kind v0.30.0-alpha+abc go1.24 linux/amd64', '0.30.0-alpha+abc'],
    ['nothing', undefined],
  ])('version of %j', (text, v) => expect(parseKindVersion(text)).toBe(v));
});

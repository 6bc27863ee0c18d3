// The pull address (--cluster-registry, input cluster-registry): how it maps a pushed image, and
// how bad values are refused before anything is pushed.
import { describe, expect, test } from '@jest/globals';
import { clusterImage, isLoopbackHost } from '../../src/bundle/reference.js';
import { parseRegistry } from '../../src/flags.js';
import { runCli } from '../../src/cli.js';
import { parseInputs } from '../../src/inputs.js';
import { inputsFrom } from '../support/inputs.js';

const D = `sha256:${'c'.repeat(64)}`;

describe('clusterImage', () => {
  test.each<[string, string, string | undefined, string]>([
    [`localhost:5001/devpkg/antrea@${D}`, 'localhost:5001/devpkg', undefined, `localhost:5001/devpkg/antrea@${D}`],
    // kind's local registry: push to localhost:5001, the cluster pulls from the container's IP.
    [`localhost:5001/devpkg/antrea@${D}`, 'localhost:5001/devpkg', '172.18.0.3:5000', `172.18.0.3:5000/devpkg/antrea@${D}`],
    // A mirror with another path replaces the whole push registry.
    [`ghcr.io/me/dev/antrea@${D}`, 'ghcr.io/me/dev', 'mirror.internal:5000/cache/dev', `mirror.internal:5000/cache/dev/antrea@${D}`],
    [`ghcr.io/me/dev/antrea@${D}`, 'ghcr.io/me/dev/', 'mirror.internal/x/', `mirror.internal/x/antrea@${D}`],
  ])('%s pushed to %s, pulled from %s', (image, push, pull, want) =>
    expect(clusterImage(image, parseRegistry(push, '--registry'), pull === undefined ? undefined : parseRegistry(pull, '--cluster-registry'))).toBe(want));

  test('an image outside the push registry cannot be mapped to a path', () => {
    expect(() => clusterImage(`other.io/x/antrea@${D}`, { host: 'ghcr.io', path: 'me/dev' }, { host: 'mirror.internal', path: 'x' })).toThrow(
      /not under the push registry ghcr.io\/me\/dev/,
    );
  });
});

test.each<[string, boolean]>([
  ['localhost:5001', true],
  ['127.0.0.2', true],
  ['[::1]:5000', true],
  ['172.18.0.3:5000', false],
  ['localhost.example.com', false],
])('isLoopbackHost(%s) = %s', (h, want) => expect(isLoopbackHost(h)).toBe(want));

describe('bad pull addresses are usage errors', () => {
  test('CLI: --cluster-registry with a scheme exits 2 before anything else', async () => {
    let err = '';
    const code = await runCli(['dev', '--package', 'p', '--registry', 'localhost:5001/devpkg', '--cluster-registry', 'http://172.18.0.3:5000'], {
      stdout: () => undefined,
      stderr: (t) => (err += t),
      env: {},
      cwd: '/',
    });
    expect(code).toBe(2);
    expect(err).toMatch(/--cluster-registry: "http:\/\/172\.18\.0\.3:5000" has a scheme \(http:\/\/\); write the registry as HOST\[:PORT\]\[\/PATH\]/);
  });
  test('action: input cluster-registry is checked with the other inputs', () => {
    expect(() => parseInputs(inputsFrom({ mode: 'cluster', registry: 'localhost:5001/devpkg', 'cluster-registry': 'https://x' }))).toThrow(/input cluster-registry: "https:\/\/x"/);
    expect(parseInputs(inputsFrom({ mode: 'cluster', registry: 'localhost:5001/devpkg', 'cluster-registry': '172.18.0.3:5000' })).clusterRegistry).toEqual({ host: '172.18.0.3:5000', path: '' });
  });
});

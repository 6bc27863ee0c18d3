import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { goneRegistryHint, imageRegistry, pullAddressWarning, registryHint } from './hints.js';

describe('pullAddressWarning', () => {
  test.each<[string, boolean]>([
    ['localhost:5001', true],
    ['127.0.0.1:5001', true],
    ['[::1]:5001', true],
    ['registry.localhost:5000', true],
    ['172.18.0.3:5000', false],
    ['ghcr.io', false],
    ['kind-registry:5000', false],
  ])('%s -> %s', (host, warns) => {
    const names = { push: '--registry', pull: '--cluster-registry' };
    const w = pullAddressWarning({ host: 'ghcr.io', path: 'me' }, { host, path: '' }, names);
    expect(w !== undefined).toBe(warns);
    if (w) expect(w).toMatch(new RegExp(`pull the bundle from ${host.replace(/[[\]().]/g, '\\$&')} \\(--cluster-registry\\).*inside the kapp-controller pod that is the pod itself.*--cluster-registry`));
    // Without a pull address the push registry is the pull address.
    const pushed = pullAddressWarning({ host, path: 'devpkg' }, undefined, names);
    expect(pushed !== undefined).toBe(warns);
    if (pushed) expect(pushed).toContain(`pull the bundle from ${host} (--registry; --cluster-registry is not set)`);
  });
  test('a non-loopback pull address silences a loopback push registry', () => {
    expect(pullAddressWarning({ host: 'localhost:5001', path: 'devpkg' }, { host: '172.18.0.3:5000', path: '' }, { push: '--registry', pull: '--cluster-registry' })).toBeUndefined();
  });
});

describe('registryHint', () => {
  test.each<[string, RegExp | undefined]>([
    ['dial tcp [::1]:5001: connect: connection refused', /localhost registry/],
    ['dial tcp 127.0.0.1:5001: connect: connection refused', /127\.0\.0\.1:5001, a localhost registry/],
    ['dial tcp localhost:5001: connect: connection refused', /localhost:5001/],
    ['dial tcp 10.0.0.5:5000: connect: connection refused', undefined],
    ['http: server gave HTTP response to HTTPS client', /plain HTTP only for localhost, loopback, \*\.local and RFC1918/],
    ['ytt: Error: unknown', undefined],
  ])('%s', (text, want) => {
    const h = registryHint(text);
    if (want) expect(h).toMatch(want);
    else expect(h).toBeUndefined();
  });
});

describe('registryHint: a fetch that did not reach the registry names it', () => {
  test.each<[string, string]>([
    [
      // vendir's error as kapp-controller reports it when the registry container is stopped.
      'vendir: Error: Syncing directory \'0\':\n  Syncing directory \'.\' with imgpkgBundle contents:\n    Fetching image:\n      Get "http://172.18.0.3:5000/v2/": dial tcp 172.18.0.3:5000: connect: no route to host',
      'hint: kapp-controller could not reach the registry 172.18.0.3:5000 (http://172.18.0.3:5000/v2/: connect: no route to host)',
    ],
    ['Get "https://10.0.0.5:5000/v2/devpkg/web-bundle/manifests/sha256:abc": dial tcp 10.0.0.5:5000: i/o timeout', 'hint: kapp-controller could not reach the registry 10.0.0.5:5000 (https://10.0.0.5:5000/v2/: i/o timeout)'],
    ['Get "http://10.0.0.5:5000/v2/": dial tcp 10.0.0.5:5000: connect: connection refused', 'could not reach the registry 10.0.0.5:5000 (http://10.0.0.5:5000/v2/: connect: connection refused)'],
    ['Get "https://registry.example.com/v2/": dial tcp: lookup registry.example.com on 10.96.0.10:53: no such host', 'could not reach the registry registry.example.com (https://registry.example.com/v2/: no such host)'],
  ])('%s', (text, want) => {
    const h = registryHint(text)!;
    expect(h).toContain(want);
    expect(h).toMatch(/the registry is down, or not reachable from the cluster's pods at that address/);
  });
  test('a localhost registry keeps its own hint', () => {
    expect(registryHint('Get "http://localhost:5001/v2/": dial tcp 127.0.0.1:5001: connect: connection refused')).toMatch(/a localhost registry/);
  });
  test('a registry that answered (a 404, unauthorized) is not "unreachable"', () => {
    expect(registryHint('GET http://10.0.0.5:5000/v2/x/manifests/sha256:abc: MANIFEST_UNKNOWN: manifest unknown')).toBeUndefined();
  });
});

describe('goneRegistryHint', () => {
  test.each<[string, string]>([
    ['projects.registry.vmware.com/tce/antrea/antrea:v1.5.3', 'projects.registry.vmware.com'],
    ['localhost:5001/web-app@sha256:abc', 'localhost:5001'],
    ['nginx', 'docker.io'],
    ['library/nginx:1', 'docker.io'],
    ['ghcr.io/x/y', 'ghcr.io'],
  ])('imageRegistry(%s) = %s', (image, want) => expect(imageRegistry(image)).toBe(want));

  test('an image on projects.registry.vmware.com: decommissioned, and what to change, naming only inputs that exist', () => {
    const h = goneRegistryHint(['projects.registry.vmware.com/tce/web:1.0.0', 'projects.registry.vmware.com/tce/web:1.0.0'])!;
    expect(h).toMatch(/^hint: projects\.registry\.vmware\.com\/tce\/web:1\.0\.0 is on projects\.registry\.vmware\.com, decommissioned by its owner in 2024 \(TCE's packages and the TKG 1\.x BOMs name it\)/);
    expect(h).toMatch(/\.imgpkg\/images\.yml/);
    expect(h).toMatch(/tkg-custom-image-repository \(--tkg-custom-image-repository/);
    // Every input and flag it names is one the action and the CLI have.
    const inputs = Object.keys((parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as { inputs: Record<string, unknown> }).inputs);
    const named = ['push-command', 'lock-images', 'tkg-custom-image-repository'].filter((i) => h.includes(i));
    expect(named).toEqual(['push-command', 'lock-images', 'tkg-custom-image-repository']);
    for (const i of named) expect(inputs).toContain(i);
  });
  test('other registries: none', () => expect(goneRegistryHint(['ghcr.io/x/y:1', 'localhost:5001/a'])).toBeUndefined());
});

import { describe, expect, test } from '@jest/globals';
import { pullAddressWarning, registryHint } from './hints.js';

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

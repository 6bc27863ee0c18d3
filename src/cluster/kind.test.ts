import { describe, expect, test } from '@jest/globals';
import { checksumFor, fetchKappControllerManifest, normalizeReleaseVersion, sha256 } from './kind.js';

const MANIFEST = 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n';

function fakeFetch(files: Record<string, string>): typeof fetch {
  return (async (url: string) => {
    const body = files[url];
    return body === undefined ? new Response('nope', { status: 404 }) : new Response(body, { status: 200 });
  }) as unknown as typeof fetch;
}
const base = 'https://github.com/carvel-dev/kapp-controller/releases/download/v0.51.0';

describe('checksumFor', () => {
  const listing = `${'a'.repeat(64)}  kctrl-linux-amd64\n${'b'.repeat(64)} *release.yml\n${'c'.repeat(64)}  ./package.yml\n`;
  test.each([
    ['release.yml', 'b'.repeat(64)],
    ['package.yml', 'c'.repeat(64)],
    ['kctrl-linux-amd64', 'a'.repeat(64)],
    ['other', undefined],
  ])('%s', (file, want) => expect(checksumFor(listing, file)).toBe(want));
});

describe('normalizeReleaseVersion', () => {
  test.each([
    ['0.51.0', 'v0.51.0'],
    ['v0.51.0', 'v0.51.0'],
    [' v0.24.0 ', 'v0.24.0'],
  ])('%j', (v, want) => expect(normalizeReleaseVersion(v, 'x')).toBe(want));
  test('rejects latest', () => expect(() => normalizeReleaseVersion('latest', 'kind-version')).toThrow(/kind-version: "latest" is not a release version/));
});

describe('fetchKappControllerManifest', () => {
  test('checked against checksums.txt', async () => {
    const f = fakeFetch({ [`${base}/release.yml`]: MANIFEST, [`${base}/checksums.txt`]: `${sha256(MANIFEST)}  release.yml\n` });
    await expect(fetchKappControllerManifest('0.51.0', { fetch: f })).resolves.toBe(MANIFEST);
  });
  test('a tampered manifest is refused', async () => {
    const f = fakeFetch({ [`${base}/release.yml`]: `${MANIFEST}#x`, [`${base}/checksums.txt`]: `${sha256(MANIFEST)}  release.yml\n` });
    await expect(fetchKappControllerManifest('v0.51.0', { fetch: f })).rejects.toThrow(/does not match the expected/);
  });
  test('an explicit sha256 must match too', async () => {
    const f = fakeFetch({ [`${base}/release.yml`]: MANIFEST });
    await expect(fetchKappControllerManifest('v0.51.0', { fetch: f, expectedSha256: sha256(MANIFEST) })).resolves.toBe(MANIFEST);
    await expect(fetchKappControllerManifest('v0.51.0', { fetch: f, expectedSha256: 'f'.repeat(64) })).rejects.toThrow(/does not match/);
  });
  test('no checksum anywhere: refused', async () => {
    const f = fakeFetch({ [`${base}/release.yml`]: MANIFEST });
    await expect(fetchKappControllerManifest('v0.51.0', { fetch: f })).rejects.toThrow(/publishes no checksum for release.yml/);
  });
});

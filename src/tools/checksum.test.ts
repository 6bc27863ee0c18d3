import { expect, test } from '@jest/globals';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSha256, sha256, sha256File } from './checksum.js';

// sha256("abc"), from FIPS 180-2's examples.
const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

test('sha256 of text and bytes', () => {
  expect(sha256('abc')).toBe(ABC);
  expect(sha256(new TextEncoder().encode('abc'))).toBe(ABC);
});

test('sha256File reads the bytes', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'devpkg-sum-'));
  try {
    await writeFile(join(dir, 'f'), 'abc');
    expect(await sha256File(join(dir, 'f'))).toBe(ABC);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('checkSha256: any case passes; another sum is refused, naming both', () => {
  expect(() => checkSha256('x', 'abc', ABC.toUpperCase())).not.toThrow();
  expect(() => checkSha256('release.yml', 'abd', ABC)).toThrow(
    `release.yml: sha256 ${sha256('abd')} does not match the expected ${ABC}; refusing to use it`,
  );
});

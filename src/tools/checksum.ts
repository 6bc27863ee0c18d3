/** sha256 sums: of bytes, of a file, and the check that refuses anything else. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DevpkgError } from '../errors.js';

/** The sha256 of `data`, lowercase hex (pure). */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The sha256 of a file's bytes, lowercase hex. */
export async function sha256File(path: string): Promise<string> {
  return sha256(await readFile(path));
}

/** Throws unless `data` has the expected sha256 (any case) (pure). */
export function checkSha256(what: string, data: string | Uint8Array, expected: string): void {
  const got = sha256(data);
  if (got !== expected.toLowerCase()) {
    throw new DevpkgError(`${what}: sha256 ${got} does not match the expected ${expected}; refusing to use it`);
  }
}

import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DevpkgError } from '../errors.js';
import { isDigest } from './reference.js';

/** The command that creates a missing `.imgpkg/images.yml` (shown in errors and the plan). */
export function kbldLockCommand(bundleDir: string): string {
  return `kbld -f ${join(bundleDir, 'config')} --imgpkg-lock-output ${join(bundleDir, '.imgpkg', 'images.yml')}`;
}

async function kind(path: string): Promise<'file' | 'dir' | 'other' | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
  } catch {
    return undefined;
  }
}

/**
 * Checks that a folder can be pushed as an imgpkg bundle: it exists and holds
 * `.imgpkg/images.yml` (imgpkg refuses `push -b` without it).
 */
export async function checkBundleDir(bundleDir: string): Promise<void> {
  const k = await kind(bundleDir);
  if (k === undefined) {
    throw new DevpkgError(`bundle folder ${bundleDir} does not exist; pass the version folder's bundle/ directory`);
  }
  if (k !== 'dir') throw new DevpkgError(`bundle folder ${bundleDir} is not a directory`);
  const lock = join(bundleDir, '.imgpkg', 'images.yml');
  if ((await kind(lock)) !== 'file') {
    throw new DevpkgError(
      `bundle folder ${bundleDir} has no .imgpkg/images.yml, which an imgpkg bundle needs. Create it with ` +
        `\`${kbldLockCommand(bundleDir)}\` and commit it, or set lock-images: true (CLI: --lock-images) to let devpkg run kbld`,
    );
  }
}

/** Reads `bundle.image` (`repo@sha256:...`) from the BundleLock that `imgpkg push --lock-output` writes. */
export function parseBundleLock(text: string, source = 'bundle lock'): { image: string; digest: string; tag?: string } {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new DevpkgError(`${source} is not YAML: ${(err as Error).message}`);
  }
  const d = doc as { kind?: string; bundle?: { image?: unknown; tag?: unknown } } | null;
  const image = d?.bundle?.image;
  if (d?.kind !== 'BundleLock' || typeof image !== 'string') {
    throw new DevpkgError(`${source} is not an imgpkg BundleLock with bundle.image`);
  }
  const digest = image.slice(image.lastIndexOf('@') + 1);
  if (!image.includes('@') || !isDigest(digest)) {
    throw new DevpkgError(`${source}: bundle.image "${image}" is not a digest reference`);
  }
  return { image, digest, tag: typeof d.bundle?.tag === 'string' ? d.bundle.tag : undefined };
}

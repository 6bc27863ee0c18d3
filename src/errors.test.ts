import { describe, expect, test } from '@jest/globals';
import { DevpkgError, explainNoSpace, isNoSpace, noSpacePath } from './errors.js';

const enospc = (path?: string) => Object.assign(new Error(`ENOSPC: no space left on device, write${path ? ` '${path}'` : ''}`), { code: 'ENOSPC', ...(path ? { path } : {}) });

describe('a full disk in words', () => {
  test.each([
    ['Node ENOSPC with its path', enospc('/scratch/devpkg-build-1/tree-2/big.bin'), true, '/scratch/devpkg-build-1/tree-2/big.bin'],
    ['git archive', new DevpkgError('git archive failed (exit 128): fatal: unable to write to /scratch/devpkg-build-1/tree-2/.devpkg-export.tar: No space left on device'), true, '/scratch/devpkg-build-1/tree-2/.devpkg-export.tar'],
    ['tar, a relative path', new DevpkgError('tar -xf failed (exit 2): tar: bundle/config/big.bin: Cannot write: No space left on device'), true, undefined],
    ['imgpkg, its own temp file', new DevpkgError('imgpkg push failed (exit 1):\nError: write /tmp/imgpkg-tar-123: no space left on device'), true, '/tmp/imgpkg-tar-123'],
    ['as the cause of another error', new DevpkgError('pushing failed', { cause: enospc('/scratch/x') }), true, '/scratch/x'],
    ['something else', new DevpkgError('registry r.io is not reachable'), false, undefined],
  ])('%s', (_name, err, full, path) => {
    expect(isNoSpace(err)).toBe(full);
    expect(noSpacePath(err)).toBe(path);
  });

  test('names the scratch folder that holds the path, says it is out of space and what to do', () => {
    const e = explainNoSpace(enospc('/scratch/devpkg-build-1/tree-2/big.bin'), { folders: ['/scratch', '/tmp'] });
    expect(e?.message).toBe(
      'the folder /scratch is out of space (no space left on device); what devpkg wrote there is removed. ' +
        'Free space there (df -h /scratch), or point the scratch folder at a disk with room: TMPDIR (on a runner, RUNNER_TEMP)\n' +
        "ENOSPC: no space left on device, write '/scratch/devpkg-build-1/tree-2/big.bin'",
    );
  });

  test('a path in none of the folders: its own folder; no path: the first folder', () => {
    expect(explainNoSpace(new DevpkgError('write /var/lib/x/y: no space left on device'), { folders: ['/scratch'] })?.message).toMatch(/^the folder \/var\/lib\/x is out of space/);
    expect(explainNoSpace(new DevpkgError('tar: a/b: Cannot write: No space left on device'), { folders: ['/scratch', '/tmp'] })?.message).toMatch(/^the folder \/scratch is out of space/);
    expect(explainNoSpace(new DevpkgError('exit 1'), { folders: ['/scratch'] })).toBeUndefined();
  });
});

import { expect, test } from '@jest/globals';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listFiles } from './files.js';

test('listFiles: relative and sorted, links listed, skipped folders not entered, nothing for a missing folder', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'devpkg-files-'));
  try {
    await mkdir(path.join(dir, 'b', '_ytt_lib', 'x'), { recursive: true });
    await mkdir(path.join(dir, 'a'));
    await writeFile(path.join(dir, 'b', 'z.lib.yaml'), '');
    await writeFile(path.join(dir, 'b', '_ytt_lib', 'x', 'inner.yaml'), '');
    await writeFile(path.join(dir, 'a', 'one'), '');
    await symlink('a', path.join(dir, 'link'));
    expect(await listFiles(dir)).toEqual(['a/one', 'b/_ytt_lib/x/inner.yaml', 'b/z.lib.yaml', 'link']);
    expect(await listFiles(dir, (folder) => folder === '_ytt_lib')).toEqual(['a/one', 'b/z.lib.yaml', 'link']);
    expect(await listFiles(path.join(dir, 'missing'))).toEqual([]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

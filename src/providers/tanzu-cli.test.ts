import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ensureTanzuCli, pickTanzuBinary } from './tanzu-cli.js';

test.each([
  [['/x/v0.28.1/tanzu-core-linux_amd64', '/x/v0.28.1/tanzu-cli-linux_amd64', '/x/install.sh'], '/x/v0.28.1/tanzu-cli-linux_amd64'],
  [['/x/tanzu', '/x/tanzu.sha256'], '/x/tanzu'],
  [['/x/README.md'], undefined],
])('pickTanzuBinary %j', (files, want) => expect(pickTanzuBinary(files)).toBe(want));

describe('ensureTanzuCli', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'devpkg-tanzu-cli-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const tc = (file: string) => ({ downloadTool: async () => file, extractTar: async () => dir });

  test('a download with the right sha256 is used; a wrong one is refused and removed', async () => {
    const file = path.join(dir, 'tanzu');
    await writeFile(file, '#!/bin/sh\necho tanzu\n');
    const sum = createHash('sha256').update('#!/bin/sh\necho tanzu\n').digest('hex');
    expect(await ensureTanzuCli({ url: 'https://example.com/tanzu', sha256: sum, toolCache: tc(file) })).toBe(file);
    await expect(ensureTanzuCli({ url: 'https://example.com/tanzu', sha256: 'a'.repeat(64), toolCache: tc(file) })).rejects.toThrow(/has sha256 [0-9a-f]{64}, expected a{64}/);
  });

  test('a url without a checksum, or nothing at all, is a usage error', async () => {
    await expect(ensureTanzuCli({ url: 'https://example.com/tanzu' })).rejects.toThrow(/needs tanzu-cli-sha256/);
    await expect(ensureTanzuCli({ env: { PATH: dir } })).rejects.toThrow(/needs the tanzu CLI/);
  });
});

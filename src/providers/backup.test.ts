import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ProvidersBackup, restoreBackup } from './backup.js';
import { listFiles } from './files.js';
import { cleanupProviders } from './cleanup.js';

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listFiles(dir)) out[f] = await readFile(path.join(dir, f), 'utf8');
  return out;
}

describe('ProvidersBackup', () => {
  let tmp = '';
  let providers = '';
  beforeEach(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), 'devpkg-backup-'));
    providers = path.join(tmp, 'providers');
    await mkdir(path.join(providers, 'ytt/vendir/cni/_ytt_lib/lib/config/overlays'), { recursive: true });
    await writeFile(path.join(providers, 'config_default.yaml'), 'A: 1\n');
    await writeFile(path.join(providers, 'ytt/vendir/cni/_ytt_lib/lib/config/values.yaml'), 'old values\n');
    await writeFile(path.join(providers, 'ytt/vendir/cni/_ytt_lib/lib/config/only-old.yaml'), 'old only\n');
    await writeFile(path.join(providers, 'ytt/vendir/cni/_ytt_lib/lib/config/overlays/same.yaml'), 'same\n');
  });
  afterEach(() => rm(tmp, { recursive: true, force: true }));

  test('restore puts back exactly the original tree: created files go, changed and removed ones return', async () => {
    const before = await snapshot(providers);
    const edited = path.join(tmp, 'edited');
    await mkdir(path.join(edited, 'overlays'), { recursive: true });
    await writeFile(path.join(edited, 'values.yaml'), 'new values\n');
    await writeFile(path.join(edited, 'only-new.yaml'), 'new only\n');
    await writeFile(path.join(edited, 'overlays/same.yaml'), 'same\n');

    const b = await ProvidersBackup.start(path.join(tmp, 'backup'), providers);
    const diff = await b.replaceDir('ytt/vendir/cni/_ytt_lib/lib/config', edited);
    expect(diff).toEqual({ added: ['only-new.yaml'], removed: ['only-old.yaml'], changed: ['values.yaml'], same: ['overlays/same.yaml'] });
    await b.writeFile('ytt/04_user_customizations/antrea_dev_package.yaml', 'overlay\n');
    await b.writeFile('ytt/04_user_customizations/antrea_dev_package.yaml', 'overlay 2\n');
    expect(await readFile(path.join(providers, 'ytt/vendir/cni/_ytt_lib/lib/config/values.yaml'), 'utf8')).toBe('new values\n');
    expect(b.manifest().createdDirs).toEqual(['ytt/04_user_customizations']);

    const logs: string[] = [];
    await cleanupProviders({ kind: 'providers-backup', backupDir: path.join(tmp, 'backup'), providersDir: providers }, async () => ({ code: 0, stdout: '', stderr: '' }), (m) => logs.push(m));
    expect(await snapshot(providers)).toEqual(before);
    expect(await listFiles(path.join(tmp, 'backup'))).toEqual([]);
    expect(logs[0]).toBe(`providers folder ${providers}: deleted ytt/vendir/cni/_ytt_lib/lib/config/only-new.yaml, ytt/04_user_customizations/antrea_dev_package.yaml; restored ytt/vendir/cni/_ytt_lib/lib/config/only-old.yaml, ytt/vendir/cni/_ytt_lib/lib/config/overlays/same.yaml, ytt/vendir/cni/_ytt_lib/lib/config/values.yaml`);
  });

  test('a developer file that devpkg overwrites comes back', async () => {
    await mkdir(path.join(providers, 'ytt/04_user_customizations'), { recursive: true });
    await writeFile(path.join(providers, 'ytt/04_user_customizations/antrea_dev_package.yaml'), 'mine\n');
    const b = await ProvidersBackup.start(path.join(tmp, 'backup'), providers);
    await b.writeFile('ytt/04_user_customizations/antrea_dev_package.yaml', 'devpkg\n');
    await restoreBackup(path.join(tmp, 'backup'));
    expect(await readFile(path.join(providers, 'ytt/04_user_customizations/antrea_dev_package.yaml'), 'utf8')).toBe('mine\n');
  });

  test('a recorded but never started backup restores nothing', async () => {
    expect(await restoreBackup(path.join(tmp, 'never'), providers)).toEqual([]);
  });
});

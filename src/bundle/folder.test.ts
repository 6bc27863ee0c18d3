import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkBundleDir, kbldLockCommand, parseBundleLock } from './folder.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'devpkg-folder-test-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('checkBundleDir', () => {
  test('a folder with .imgpkg/images.yml passes', async () => {
    await mkdir(join(dir, '.imgpkg'));
    await writeFile(join(dir, '.imgpkg', 'images.yml'), 'kind: ImagesLock\n');
    await expect(checkBundleDir(dir)).resolves.toBeUndefined();
  });
  test('missing .imgpkg: names the folder and the kbld command that creates it', async () => {
    await mkdir(join(dir, 'config'));
    const err = (await checkBundleDir(dir).catch((e: Error) => e)) as Error;
    expect(err.message).toContain(`bundle folder ${dir} has no .imgpkg/images.yml`);
    expect(err.message).toContain(`kbld -f ${dir}/config --imgpkg-lock-output ${dir}/.imgpkg/images.yml`);
    expect(err.message).toContain('lock-images: true');
  });
  test('missing folder', async () => {
    await expect(checkBundleDir(join(dir, 'nope'))).rejects.toThrow(/bundle folder .*nope does not exist/);
  });
  test('a file, not a folder', async () => {
    await writeFile(join(dir, 'f'), '');
    await expect(checkBundleDir(join(dir, 'f'))).rejects.toThrow(/is not a directory/);
  });
});

test('kbldLockCommand', () => {
  expect(kbldLockCommand('/r/b')).toBe('kbld -f /r/b/config --imgpkg-lock-output /r/b/.imgpkg/images.yml');
});

describe('parseBundleLock', () => {
  const d = 'sha256:' + '0f'.repeat(32);
  test('imgpkg push --lock-output', () => {
    const text = `apiVersion: imgpkg.carvel.dev/v1alpha1\nbundle:\n  image: localhost:5001/devpkg/a@${d}\n  tag: 1.0.0_dev.1\nkind: BundleLock\n`;
    expect(parseBundleLock(text)).toEqual({ image: `localhost:5001/devpkg/a@${d}`, digest: d, tag: '1.0.0_dev.1' });
  });
  test.each([
    ['kind: ImagesLock\nimages: []\n', /not an imgpkg BundleLock/],
    ['kind: BundleLock\nbundle:\n  image: localhost:5001/a:tag\n', /not a digest reference/],
    ['kind: [unclosed', /is not YAML/],
  ])('rejects %j', (text, msg) => expect(() => parseBundleLock(text)).toThrow(msg));
});

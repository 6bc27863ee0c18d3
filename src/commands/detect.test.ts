import { jest } from '@jest/globals';
import { UsageError } from '../errors.js';
import { removeTempDirs, TestRepo } from '../detect/test-repo.js';
import type { CliIO } from './io.js';
import { run } from './detect.js';

jest.setTimeout(30000);
afterAll(removeTempDirs);

function io(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIO = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), env: {}, cwd };
  return { cli, out: () => out.join(''), err: () => err.join('') };
}

describe('devpkg detect', () => {
  let repo: TestRepo;
  let before: string;
  beforeAll(() => {
    repo = TestRepo.init();
    repo.addVersion('pkgs', 'antrea', '1.2.3').addVersion('pkgs', 'antrea', '1.3.0').addVersion('pkgs', 'calico', '3.19.1');
    before = repo.commit('initial');
    repo.write({ 'pkgs/antrea/1.3.0/bundle/config/values.yaml': 'x\n', 'pkgs/calico/3.19.1/README.md': 'docs\n' });
    repo.rm('pkgs/antrea/1.2.3');
    repo.commit('change');
  });

  test('text: name/version per line, removed ones marked', async () => {
    const t = io(repo.dir);
    expect(await run(['--base', before, '--packages-dir', 'pkgs'], t.cli)).toBe(0);
    expect(t.out()).toBe('antrea/1.3.0\n- antrea/1.2.3 (removed)\n');
  });

  test('json, with --repo relative to cwd and --ignore', async () => {
    const t = io(repo.dir + '/..');
    const dirName = repo.dir.split('/').pop() as string;
    expect(await run(['--repo', dirName, '--base', before, '--head', 'main', '--range', '--packages-dir', 'pkgs', '--ignore', '', '--json'], t.cli)).toBe(0);
    const j = JSON.parse(t.out());
    expect(j.packages).toEqual([
      { name: 'antrea', version: '1.3.0', path: 'pkgs/antrea/1.3.0' },
      { name: 'calico', version: '3.19.1', path: 'pkgs/calico/3.19.1' },
    ]);
    expect(j.removed).toEqual([{ name: 'antrea', version: '1.2.3', path: 'pkgs/antrea/1.2.3' }]);
    expect(j.base).toBe(before);
    expect(j.mergeBase).toBeUndefined();
  });

  test('--all lists every version folder at head', async () => {
    const t = io(repo.dir);
    expect(await run(['--all', '--packages-dir', 'pkgs'], t.cli)).toBe(0);
    expect(t.out()).toBe('antrea/1.3.0\ncalico/3.19.1\n');
  });

  test('no changes prints nothing', async () => {
    const t = io(repo.dir);
    expect(await run(['--base', 'HEAD', '--packages-dir', 'pkgs'], t.cli)).toBe(0);
    expect(t.out()).toBe('');
  });

  test('--help', async () => {
    const t = io(repo.dir);
    expect(await run(['--help'], t.cli)).toBe(0);
    expect(t.out()).toMatch(/Usage: devpkg detect/);
  });

  test.each([
    [[], /give exactly one of --base REF or --all/],
    [['--all', '--base', 'x'], /give exactly one of --base REF or --all/],
    [['--all', '--range'], /--range needs --base/],
    [['--bogus'], /bogus/],
  ])('usage error %j', async (argv, msg) => {
    const t = io(repo.dir);
    const p = run(argv, t.cli);
    await expect(p).rejects.toThrow(msg);
    await expect(p).rejects.toBeInstanceOf(UsageError);
  });

  test('an unknown ref is an error naming it', async () => {
    await expect(run(['--base', 'nope', '--packages-dir', 'pkgs'], io(repo.dir).cli)).rejects.toThrow(/unknown git ref "nope"/);
  });
});

import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { detectChanges } from '../detect/detect.js';
import { tceDiff } from '../../test/support/detect.js';
import { execTool, type ExecFn } from './exec.js';
import { batchProcessesStarted, closeGitReaders, exportTree, Git, gitArgs, gitTopLevel, parseBatchOutput, parseGitVersion, parseLsTreeZ, parseNameStatusZ, parseTreeObject } from './git.js';

describe('gitArgs', () => {
  test.each<[string, string[], string[]]>([
    ['version', gitArgs.version(), ['version']],
    ['revParse', gitArgs.revParse('main'), ['rev-parse', '--verify', '--quiet', 'main^{commit}']],
    ['revParseAll', gitArgs.revParseAll(['HEAD', 'main']), ['rev-parse', 'HEAD^{commit}', 'main^{commit}', '--']],
    ['mergeBase', gitArgs.mergeBase('a', 'b'), ['merge-base', 'a', 'b']],
    ['diffNameStatus', gitArgs.diffNameStatus('a', 'b'), ['diff-tree', '-r', '-z', '--name-status', '-M', 'a', 'b']],
    ['diffNameStatus paths', gitArgs.diffNameStatus('a', 'b', ['addons/packages']), ['diff-tree', '-r', '-z', '--name-status', '-M', 'a', 'b', '--', 'addons/packages']],
    ['isShallow', gitArgs.isShallow(), ['rev-parse', '--is-shallow-repository']],
    ['remoteUrl', gitArgs.remoteUrl('origin'), ['remote', 'get-url', 'origin']],
    ['fetchRef', gitArgs.fetchRef('origin', 'main'), ['fetch', '--no-tags', '--no-recurse-submodules', '--quiet', 'origin', 'main']],
    ['fetchRef depth', gitArgs.fetchRef('origin', 'main', 1), ['fetch', '--no-tags', '--no-recurse-submodules', '--quiet', '--depth=1', 'origin', 'main']],
    ['fetchDeepen', gitArgs.fetchDeepen('origin', 50, ['abc', 'def']), ['fetch', '--no-tags', '--no-recurse-submodules', '--quiet', '--deepen=50', 'origin', 'abc', 'def']],
    ['fetchUnshallow', gitArgs.fetchUnshallow('up'), ['fetch', '--no-tags', '--no-recurse-submodules', '--quiet', '--unshallow', 'up']],
    ['lsTree', gitArgs.lsTree('HEAD', ['a b']), ['ls-tree', '-z', '--full-tree', 'HEAD', '--', 'a b']],
    ['lsTree -r names', gitArgs.lsTree('HEAD', [], { recursive: true, nameOnly: true }), ['ls-tree', '-z', '--full-tree', '-r', '--name-only', 'HEAD', '--']],
    ['show', gitArgs.show('HEAD', 'p/x 1/package.yaml'), ['cat-file', 'blob', 'HEAD:p/x 1/package.yaml']],
  ])('%s', (_name, got, want) => expect(got).toEqual(want));
});

describe('parsers', () => {
  test.each<[string, [number, number, number] | undefined]>([
    ['git version 2.39.5\n', [2, 39, 5]],
    ['git version 2.39.3 (Apple Git-146)', [2, 39, 3]],
    ['git version 2.45.1.windows.1', [2, 45, 1]],
    ['git version 3.0', [3, 0, 0]],
    ['hub version 1', undefined],
  ])('parseGitVersion(%j)', (text, want) => expect(parseGitVersion(text)).toEqual(want));

  test('parseNameStatusZ keeps odd names intact and reads renames', () => {
    const out = ['M', 'a b/c.yaml', 'R087', 'old name+1', 'new\tname+2', 'A', 'x\ny', 'D', 'gone', 'C100', 'src', 'dst', ''].join('\0');
    expect(parseNameStatusZ(out)).toEqual([
      { status: 'M', path: 'a b/c.yaml' },
      { status: 'R', oldPath: 'old name+1', path: 'new\tname+2', score: 87 },
      { status: 'A', path: 'x\ny' },
      { status: 'D', path: 'gone' },
      { status: 'C', oldPath: 'src', path: 'dst', score: 100 },
    ]);
    expect(parseNameStatusZ('')).toEqual([]);
  });

  test('parseNameStatusZ rejects output it does not understand', () => {
    expect(() => parseNameStatusZ('Q\0file\0')).toThrow(/unexpected status "Q"/);
    expect(() => parseNameStatusZ('R100\0only-one\0')).toThrow(/truncated R100/);
    expect(() => parseNameStatusZ('\0file\0')).toThrow(/unexpected status ""/);
    expect(() => parseNameStatusZ('MX\0file\0')).toThrow(/unexpected status "MX"/);
  });

  test('parseLsTreeZ', () => {
    const out = '100644 blob abc\tp/a b.yaml\x00040000 tree def\tp/dir\0';
    expect(parseLsTreeZ(out)).toEqual([
      { mode: '100644', type: 'blob', object: 'abc', path: 'p/a b.yaml' },
      { mode: '040000', type: 'tree', object: 'def', path: 'p/dir' },
    ]);
  });
});

describe('Git.create', () => {
  const fake =
    (stdout: string, code = 0): ExecFn =>
    async () => ({ code, stdout, stderr: '' });

  test('checks the version through the injected exec', async () => {
    const calls: [string, readonly string[]][] = [];
    const exec: ExecFn = async (cmd, args) => {
      calls.push([cmd, args]);
      return { code: 0, stdout: 'git version 2.43.0\n', stderr: '' };
    };
    const git = await Git.create('/repo', exec);
    expect(git.version).toEqual([2, 43, 0]);
    expect(calls).toEqual([['git', ['version']]]);
  });

  test.each([
    ['git version 2.14.1', /too old; devpkg needs git 2.15/],
    ['something else', /unexpected answer/],
  ])('rejects %s', async (stdout, msg) => {
    await expect(Git.create('/repo', fake(stdout))).rejects.toThrow(msg);
  });

  test('every call passes an argv array and the repository as cwd', async () => {
    const seen: { args: readonly string[]; cwd?: string }[] = [];
    const exec: ExecFn = async (_cmd, args, opts) => {
      seen.push({ args, cwd: opts?.cwd });
      if (args[0] === 'version') return { code: 0, stdout: 'git version 2.39.5', stderr: '' };
      if (args[0] === 'rev-parse') return { code: 1, stdout: '', stderr: '' };
      return { code: 0, stdout: 'M\0a b\0', stderr: '' };
    };
    const git = await Git.create('/r', exec);
    await expect(git.tryRevParse('nope')).resolves.toBeUndefined();
    await expect(git.revParse('nope')).rejects.toThrow(/unknown git ref "nope"/);
    await expect(git.diffNameStatus('a', 'b')).resolves.toEqual([{ status: 'M', path: 'a b' }]);
    expect(seen.every((s) => s.cwd === '/r')).toBe(true);
    await expect(git.revParse('--upload-pack=x')).rejects.toThrow(/not a valid git ref/);
  });

  test('exit 128 of rev-parse is not read as "no such ref": git\'s message is kept', async () => {
    const exec: ExecFn = async (_cmd, args) =>
      args[0] === 'version' ? { code: 0, stdout: 'git version 2.39.5', stderr: '' } : { code: 128, stdout: '', stderr: "fatal: unable to read tree 1234\n" };
    const git = await Git.create('/r', exec);
    await expect(git.tryRevParse('HEAD')).rejects.toThrow('git rev-parse HEAD failed (exit 128) in /r: fatal: unable to read tree 1234');
    await expect(git.revParse('HEAD')).rejects.toThrow('fatal: unable to read tree 1234');
  });
});

describe('Git on a real repository', () => {
  let dir: string;
  let git: Git;
  const run = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@devpkg.invalid', '-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'devpkg-git-'));
    run('init', '-q', '-b', 'main');
    write('p/x/1.0.0+vmware.1/package.yaml', 'one\n');
    write('p/x/1.0.0+vmware.1/old name.yaml', 'the same content, long enough to be seen as a rename\n'.repeat(5));
    run('add', '-A');
    run('commit', '-q', '-m', 'first');
    write('p/x/1.0.0+vmware.1/package.yaml', 'two\n');
    write('p/x/1.0.0+vmware.1/with space+plus.yaml', 'new\n');
    run('mv', 'p/x/1.0.0+vmware.1/old name.yaml', 'p/x/1.0.0+vmware.1/new name.yaml');
    run('add', '-A');
    run('commit', '-q', '-m', 'second');
    git = await Git.create(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('revParse, tryRevParse, mergeBase, isShallow', async () => {
    const head = run('rev-parse', 'HEAD');
    await expect(git.revParse('main')).resolves.toBe(head);
    await expect(git.tryRevParse('no-such-branch')).resolves.toBeUndefined();
    await expect(git.revParse('no-such-branch')).rejects.toThrow(/unknown git ref "no-such-branch"/);
    await expect(git.tryRevParseAll(['main', 'HEAD~1'])).resolves.toEqual([head, run('rev-parse', 'HEAD~1')]);
    await expect(git.tryRevParseAll(['main', 'no-such-branch'])).resolves.toBeUndefined();
    await expect(git.mergeBase('HEAD~1', 'HEAD')).resolves.toBe(run('rev-parse', 'HEAD~1'));
    await expect(git.isShallow()).resolves.toBe(false);
    await expect(git.remoteUrl('origin')).resolves.toBeUndefined();
  });

  test('diffNameStatus: renames, spaces and + in names', async () => {
    const changes = await git.diffNameStatus('HEAD~1', 'HEAD');
    expect(changes).toEqual(
      expect.arrayContaining([
        { status: 'M', path: 'p/x/1.0.0+vmware.1/package.yaml' },
        { status: 'A', path: 'p/x/1.0.0+vmware.1/with space+plus.yaml' },
        { status: 'R', oldPath: 'p/x/1.0.0+vmware.1/old name.yaml', path: 'p/x/1.0.0+vmware.1/new name.yaml', score: 100 },
      ]),
    );
    expect(changes).toHaveLength(3);
  });

  test('show, lsTree, listFiles', async () => {
    await expect(git.show('HEAD~1', 'p/x/1.0.0+vmware.1/package.yaml')).resolves.toBe('one\n');
    await expect(git.show('HEAD', 'p/nope')).rejects.toThrow(/p\/nope does not exist at HEAD/);
    await expect(git.tryShow('HEAD', 'p/nope')).resolves.toBeUndefined();
    const tree = await git.lsTree('HEAD', ['p/x']);
    expect(tree).toEqual([{ mode: '040000', type: 'tree', object: expect.stringMatching(/^[0-9a-f]{40}$/), path: 'p/x' }]);
    expect((await git.listFiles('HEAD', ['p'])).sort()).toEqual([
      'p/x/1.0.0+vmware.1/new name.yaml',
      'p/x/1.0.0+vmware.1/package.yaml',
      'p/x/1.0.0+vmware.1/with space+plus.yaml',
    ]);
  });

  test('a folder that is no repository gets a readable error', async () => {
    const plain = mkdtempSync(join(tmpdir(), 'devpkg-nogit-'));
    try {
      const g = await Git.create(plain, undefined);
      await expect(g.revParse('HEAD')).rejects.toThrow(/is not a git repository/);
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });
});

describe("git's own refusals are kept", () => {
  // HOME in a temp folder and no system config: the user's safe.directory settings do not apply.
  let root: string;
  let env: Record<string, string>;
  let exec: ExecFn;
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@devpkg.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, env: { ...process.env, ...env }, encoding: 'utf8' });

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'devpkg-git-refusals-'));
    mkdirSync(join(root, 'home'));
    env = { HOME: join(root, 'home'), XDG_CONFIG_HOME: join(root, 'home', '.config'), GIT_CONFIG_NOSYSTEM: '1' };
    exec = (cmd, args, opts) => execTool(cmd, args, { ...opts, env: { ...env, ...opts?.env } });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('a repository owned by another user names the safe.directory command', async () => {
    const dir = join(root, 'theirs');
    mkdirSync(join(dir, 'pkgs'), { recursive: true });
    git(dir, 'init', '-q', '-b', 'main');
    writeFileSync(join(dir, 'pkgs', 'a.yaml'), 'a\n');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'one');
    // Root (containers, CI) can hand the repository to another uid, as a volume mounted from the
    // host is; otherwise git's own test switch makes it see a different owner.
    let asOther = exec;
    if (process.getuid?.() === 0) {
      execFileSync('chown', ['-R', '12345:12345', dir]);
    } else {
      asOther = (cmd, args, opts) => exec(cmd, args, { ...opts, env: { GIT_TEST_ASSUME_DIFFERENT_OWNER: '1', ...opts?.env } });
    }
    const g = await Git.create(dir, asOther);
    const fix = `git config --global --add safe.directory ${dir}`;
    await expect(g.revParse('HEAD')).rejects.toThrow(`git refuses ${dir}: the repository is owned by another user ("detected dubious ownership"); if you trust it, run: ${fix}`);
    await expect(g.tryRevParse('HEAD')).rejects.toThrow(fix);
    await expect(g.listFiles('HEAD', ['pkgs'])).rejects.toThrow(fix);
    await expect(detectChanges({ ...tceDiff(g, 'pkgs'), base: 'main', head: 'HEAD' })).rejects.toThrow(fix);
    await expect(gitTopLevel(asOther, join(dir, 'pkgs'))).rejects.toThrow(fix);
    // The command it names is the fix: with it, the same calls work.
    git(root, 'config', '--global', '--add', 'safe.directory', dir);
    await expect(g.revParse('HEAD')).resolves.toMatch(/^[0-9a-f]{40}$/);
  });

  test('an empty repository says it has no commits', async () => {
    const dir = join(root, 'empty');
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'main');
    const g = await Git.create(dir, exec);
    const noCommits = `${dir} is a git repository with no commits yet: commit the packages (git add, git commit) and run devpkg again`;
    await expect(g.revParse('HEAD')).rejects.toThrow(noCommits);
    await expect(detectChanges({ ...tceDiff(g, 'pkgs'), base: 'main', head: 'HEAD' })).rejects.toThrow(noCommits);
    // Once there is a commit, an unknown ref is still named as one.
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'one');
    await expect(g.revParse('no-such-branch')).rejects.toThrow(`unknown git ref "no-such-branch" in ${dir}: no such commit`);
  });
});

describe('git cat-file --batch', () => {
  test('parseBatchOutput: whole answers, missing ones, and the rest kept for the next chunk', () => {
    const one = Buffer.from(`${'a'.repeat(40)} blob 5\nhello\n${'b'.repeat(40)} missing\n`);
    const part = Buffer.from(`${'c'.repeat(40)} blob 10\nhal`);
    const { answers, rest } = parseBatchOutput(Buffer.concat([one, part]));
    expect(answers).toEqual([{ oid: 'a'.repeat(40), type: 'blob', content: Buffer.from('hello') }, undefined]);
    expect(rest.toString()).toBe(`${'c'.repeat(40)} blob 10\nhal`);
    expect(() => parseBatchOutput(Buffer.from('what is this\n'))).toThrow(/unexpected answer/);
  });

  test('one process answers every read of every Git of a repository, in order, and close() ends it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devpkg-batch-'));
    try {
      const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@devpkg.invalid', '-c', 'commit.gpgsign=false', ...a], { cwd: dir, encoding: 'utf8' });
      g('init', '-q', '-b', 'main');
      for (let i = 0; i < 30; i++) writeFileSync(join(dir, `f${i}.txt`), `file ${i}\n${'x'.repeat(i * 500)}`);
      g('add', '-A');
      g('commit', '-q', '-m', 'one');
      const head = g('rev-parse', 'HEAD').trim();
      const [a, b] = [await Git.create(dir), await Git.create(dir)];
      const texts = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).tryShow(head, `f${i}.txt`)));
      texts.forEach((t, i) => expect(t).toBe(`file ${i}\n${'x'.repeat(i * 500)}`));
      await expect(a.tryShow(head, 'nope.txt')).resolves.toBeUndefined();
      await expect(a.tryShow(head, '')).resolves.toBeUndefined(); // the root is a tree, not a file
      expect(batchProcessesStarted(dir)).toBe(1);
      expect((await a.listFiles(head, ['f1.txt'])).sort()).toEqual(['f1.txt']);
      await closeGitReaders();
      expect(batchProcessesStarted(dir)).toBe(0);
      // A read after the close starts a new one (a later run).
      await expect(a.tryShow(head, 'f0.txt')).resolves.toBe('file 0\n');
      await closeGitReaders();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Every file, folder and link below `dir` with what git archive would keep of it: content, executable bit, link target. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(join(dir, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(dir, p));
      if (st.isSymbolicLink()) out[p] = `link -> ${readlinkSync(join(dir, p))}`;
      else if (st.isDirectory()) {
        out[p] = 'dir';
        walk(p);
      } else out[p] = `${st.mode & 0o100 ? 'exec' : 'file'} ${readFileSync(join(dir, p)).toString('base64')}`;
    }
  };
  walk('');
  return out;
}

describe('exportTree: a folder at a commit, from the one git cat-file --batch', () => {
  test('writes what git archive writes (nested folders, executable bit, links, bytes, a submodule), from the commit and not the working tree', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devpkg-export-'));
    try {
      const repo = join(dir, 'repo');
      mkdirSync(repo);
      const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@devpkg.invalid', '-c', 'commit.gpgsign=false', ...a], { cwd: repo, encoding: 'utf8' });
      g('init', '-q', '-b', 'main');
      // A monorepo: the scope is mono/, the package folder pkgs/hello/1.0.0 below it.
      const vf = join(repo, 'mono', 'pkgs', 'hello', '1.0.0');
      mkdirSync(join(vf, 'bundle', 'config', 'deep er'), { recursive: true });
      writeFileSync(join(vf, 'package.yaml'), 'apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\n');
      writeFileSync(join(vf, 'bundle', 'config', 'deep er', 'värde.yml'), 'a: 1\n');
      writeFileSync(join(vf, 'bundle', 'blob.bin'), Buffer.from([0, 255, 10, 13, 0xc3, 0x28, 0]));
      writeFileSync(join(vf, 'bundle', 'run.sh'), '#!/bin/sh\necho hi\n');
      chmodSync(join(vf, 'bundle', 'run.sh'), 0o755);
      symlinkSync('config/deep er/värde.yml', join(vf, 'bundle', 'values.yml'));
      writeFileSync(join(repo, 'mono', 'other.txt'), 'not in the folder\n');
      g('add', '-A');
      g('update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},mono/pkgs/hello/1.0.0/bundle/vendored`);
      g('commit', '-q', '-m', 'one');
      const head = g('rev-parse', 'HEAD').trim();
      // The working tree moves on: the export must not see it.
      writeFileSync(join(vf, 'package.yaml'), 'edited after the commit\n');
      writeFileSync(join(vf, 'bundle', 'new.yml'), 'b: 2\n');

      const ours = join(dir, 'ours');
      await expect(exportTree(join(repo, 'mono'), 'git', head, 'pkgs/hello/1.0.0', ours)).resolves.toBe(true);
      const theirs = join(dir, 'theirs');
      mkdirSync(theirs);
      execFileSync('sh', ['-c', `git archive --format=tar ${head} -- pkgs/hello/1.0.0 | tar -xf - -C ${JSON.stringify(theirs)}`], { cwd: join(repo, 'mono') });
      const want = snapshot(theirs);
      expect(want['pkgs/hello/1.0.0/bundle/run.sh']).toMatch(/^exec /);
      expect(want['pkgs/hello/1.0.0/bundle/values.yml']).toBe('link -> config/deep er/värde.yml');
      expect(want['pkgs/hello/1.0.0/bundle/vendored']).toBe('dir');
      expect(snapshot(ours)).toEqual(want);
      expect(readFileSync(join(ours, 'pkgs/hello/1.0.0/package.yaml'), 'utf8')).toContain('kind: Package');

      // The scope's root, and a trailing slash, name the same folders; a file or a missing folder is no folder.
      await expect(exportTree(join(repo, 'mono'), 'git', head, '', join(dir, 'all'))).resolves.toBe(true);
      expect(Object.keys(snapshot(join(dir, 'all')))).toContain('other.txt');
      await expect(exportTree(join(repo, 'mono'), 'git', head, 'pkgs/hello/', join(dir, 'slash'))).resolves.toBe(true);
      expect(snapshot(join(dir, 'slash'))).toEqual(snapshot(ours));
      await expect(exportTree(join(repo, 'mono'), 'git', head, 'other.txt', join(dir, 'file'))).resolves.toBe(false);
      await expect(exportTree(join(repo, 'mono'), 'git', head, 'pkgs/nope', join(dir, 'nope'))).resolves.toBe(false);
      await expect(exportTree(join(repo, 'mono'), 'git', head, '../mono', join(dir, 'up'))).rejects.toThrow('../mono: not a folder inside');
      // Every read went through one process for the scope.
      expect(batchProcessesStarted(join(repo, 'mono'))).toBe(1);
    } finally {
      await closeGitReaders();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('parseTreeObject: entries with their mode and id; a name git would not write, or a cut entry, is refused by name', () => {
    const entry = (mode: string, name: Buffer | string, oid: string) => Buffer.concat([Buffer.from(`${mode} `), Buffer.from(name), Buffer.from([0]), Buffer.from(oid, 'hex')]);
    const a = 'ab'.repeat(20);
    const b = 'cd'.repeat(20);
    expect(parseTreeObject(Buffer.concat([entry('40000', 'config', a), entry('100755', 'run.sh', b)]), 20, 'x')).toEqual([
      { mode: '40000', name: 'config', oid: a },
      { mode: '100755', name: 'run.sh', oid: b },
    ]);
    expect(parseTreeObject(entry('100644', 'f', 'ef'.repeat(32)), 32, 'x')).toEqual([{ mode: '100644', name: 'f', oid: 'ef'.repeat(32) }]);
    expect(() => parseTreeObject(entry('100644', '..', a), 20, 'abc:pkgs')).toThrow('git tree abc:pkgs: the entry ".." is not a file name devpkg can write');
    expect(() => parseTreeObject(entry('100644', 'a/b', a), 20, 'x')).toThrow('"a/b" is not a file name');
    expect(() => parseTreeObject(entry('100644', Buffer.from([0x66, 0xff]), a), 20, 'x')).toThrow('is not a file name');
    expect(() => parseTreeObject(entry('100644', 'f', a).subarray(0, 20), 20, 'x')).toThrow('git tree x: malformed entry at byte 0');
  });
});

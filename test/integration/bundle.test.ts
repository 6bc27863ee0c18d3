// Issue 5: build and push the package bundle, against real registries with real imgpkg.
// - the harness registry (DEVPKG_TEST_REGISTRY, Debian's docker-registry, plain HTTP on loopback);
// - a second docker-registry started here with htpasswd (bcrypt) basic auth;
// - a closed port for "unreachable".
// Results are checked with tools devpkg does not use itself: `imgpkg pull` of the digest
// reference, and skopeo for the bundle label and the digest.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, openSync, closeSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { runCli } from '../../src/cli.js';
import { pushBundle } from '../../src/bundle/push.js';
import { parseRepository } from '../../src/bundle/reference.js';
import { execTool } from '../../src/tools/exec.js';
import { Imgpkg } from '../../src/tools/imgpkg.js';
import { freePort, repoRoot, runTool } from './helpers/run.js';

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'bundle', 'simple', 'bundle');
const USER = 'devpkg-tester';
const PASSWORD = `pw-${randomBytes(9).toString('hex')}`;
const WRONG_PASSWORD = `wrong-${randomBytes(9).toString('hex')}`;

function harnessRegistry(): string {
  const r = process.env.DEVPKG_TEST_REGISTRY;
  if (!r) throw new Error('DEVPKG_TEST_REGISTRY is not set; run with `npm run test:integration` (the harness globalSetup sets it)');
  return r;
}

/** Every file under dir (relative path -> content), .imgpkg included. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    out[relative(dir, p)] = await readFile(p, 'utf8');
  }
  return out;
}

async function skopeoInspect(ref: string, creds?: string): Promise<{ Digest: string; Labels: Record<string, string> | null }> {
  const args = ['inspect', '--tls-verify=false', ...(creds ? ['--creds', creds] : []), `docker://${ref}`];
  return JSON.parse((await runTool('skopeo', args)).stdout);
}

let work: string;
let bundleDir: string;
let imgpkg: Imgpkg;
let authRegistry: { host: string; proc: ChildProcess; log: string };
const run = randomBytes(4).toString('hex');

beforeAll(async () => {
  harnessRegistry();
  work = await mkdtemp(join(tmpdir(), 'devpkg-bundle-it-'));
  bundleDir = join(work, 'antrea', '1.2.3', 'bundle');
  await cp(FIXTURE, bundleDir, { recursive: true });
  // A file unique to this run, so pushes are new content, not a digest left from an earlier run.
  await writeFile(join(bundleDir, 'config', 'run.yaml'), `#! run ${run}\n`);
  imgpkg = await Imgpkg.create(execTool);

  // A second registry with bcrypt htpasswd basic auth, on a free loopback port.
  const dir = join(work, 'auth-registry');
  await mkdir(dir);
  // bcrypt (-B); the password goes in on stdin (-i), not on a command line.
  await new Promise<void>((resolve, reject) => {
    const p = spawn('htpasswd', ['-iBc', join(dir, 'htpasswd'), USER], { stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`htpasswd failed (${code}): ${err}`))));
    p.stdin.end(`${PASSWORD}\n`);
  });
  const port = await freePort();
  await writeFile(
    join(dir, 'config.yml'),
    [
      'version: 0.1',
      'log: {level: warn}',
      `storage: {filesystem: {rootdirectory: ${join(dir, 'data')}}}`,
      `http: {addr: "127.0.0.1:${port}", secret: devpkg-test}`,
      `auth: {htpasswd: {realm: devpkg-test, path: ${join(dir, 'htpasswd')}}}`,
      '',
    ].join('\n'),
  );
  const log = join(dir, 'registry.log');
  const fd = openSync(log, 'a');
  const proc = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  authRegistry = { host: `127.0.0.1:${port}`, proc, log };
  const deadline = Date.now() + 20_000;
  for (;;) {
    const status = await fetch(`http://${authRegistry.host}/v2/`).then((r) => r.status, () => 0);
    if (status === 401) break;
    if (Date.now() > deadline || proc.exitCode !== null) {
      throw new Error(`the basic-auth registry did not start (last status ${status}); log: ${await readFile(log, 'utf8')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  const proc = authRegistry?.proc;
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }
  if (work) await rm(work, { recursive: true, force: true });
});

describe('pushBundle with imgpkg (harness registry)', () => {
  test('push, pull by digest gives the same files; skopeo sees the bundle label and the digest', async () => {
    const repository = `${harnessRegistry()}/devpkg-it/antrea-${run}`;
    const lockDirBefore = (await readdir(tmpdir())).filter((n) => n.startsWith('devpkg-lock-'));
    const logs: string[] = [];
    const r = await pushBundle({ bundleDir, repository: parseRepository(repository), tag: '1.2.3_dev.1', imgpkg, log: (m) => logs.push(m) });
    expect(r.image).toMatch(new RegExp(`^${repository.replace(/[.]/g, '\\.')}@sha256:[a-f0-9]{64}$`));
    expect(r.image.endsWith(`@${r.digest}`)).toBe(true);
    expect(r.tag).toBe('1.2.3_dev.1');
    expect(r.lockFile).toBeUndefined();
    // The lock lived in a temp folder that is gone again.
    expect((await readdir(tmpdir())).filter((n) => n.startsWith('devpkg-lock-'))).toEqual(lockDirBefore);

    const out = join(work, 'pulled');
    const pulled = await imgpkg.pull({ image: r.image, outputDir: out });
    expect(pulled.code).toBe(0);
    const want = await tree(bundleDir);
    const got = await tree(out);
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const f of Object.keys(want).filter((f) => !f.startsWith('.imgpkg/'))) expect(got[f]).toBe(want[f]);

    const info = await skopeoInspect(`${repository}:1.2.3_dev.1`);
    expect(info.Digest).toBe(r.digest);
    expect(info.Labels?.['dev.carvel.imgpkg.bundle']).toBe('true');
  });

  test('devpkg push (CLI) prints the digest reference on stdout and keeps --lock-output', async () => {
    const repository = `${harnessRegistry()}/devpkg-it/cli-${run}`;
    const lockOutput = join(work, 'cli.lock.yml');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['push', '--bundle', bundleDir, '--image', `${repository}:0.1.0_dev.2`, '--lock-output', lockOutput], {
      stdout: (t) => void out.push(t),
      stderr: (t) => void err.push(t),
      env: process.env,
      cwd: work,
    });
    expect({ code, err: err.join('') }).toEqual({ code: 0, err: expect.stringContaining('pushed') });
    const image = out.join('').trim();
    expect(image).toMatch(/@sha256:[a-f0-9]{64}$/);
    expect(await readFile(lockOutput, 'utf8')).toContain(`image: ${image}`);
    expect((await skopeoInspect(`${repository}:0.1.0_dev.2`)).Digest).toBe(image.split('@')[1]);
  });

  test('a tag with "+" and a folder without .imgpkg are refused before pushing', async () => {
    const repository = `${harnessRegistry()}/devpkg-it/bad-${run}`;
    await expect(pushBundle({ bundleDir, repository: parseRepository(repository), tag: '1.2.3+dev.1', imgpkg })).rejects.toThrow(
      'tag "1.2.3+dev.1" contains "+", which OCI tags cannot hold; use "1.2.3_dev.1"',
    );
    const bare = join(work, 'bare');
    await cp(join(bundleDir, 'config'), join(bare, 'config'), { recursive: true });
    await expect(pushBundle({ bundleDir: bare, repository: parseRepository(repository), tag: 't', imgpkg })).rejects.toThrow(
      `bundle folder ${bare} has no .imgpkg/images.yml, which an imgpkg bundle needs. Create it with \`kbld -f ${bare}/config --imgpkg-lock-output ${bare}/.imgpkg/images.yml\``,
    );
    const tags = await runTool('skopeo', ['list-tags', '--tls-verify=false', `docker://${repository}`], { allowFail: true });
    expect(tags.code).not.toBe(0); // nothing was pushed, so the repository does not exist
  });
});

describe('lock-images (kbld)', () => {
  test('kbld writes .imgpkg/images.yml with digests, then the bundle is pushed', async () => {
    const registry = harnessRegistry();
    // An image kbld can resolve: a bundle pushed here first, referenced by tag.
    const dep = await pushBundle({ bundleDir, repository: parseRepository(`${registry}/devpkg-it/dep-${run}`), tag: 'v1', imgpkg });
    const dir = join(work, 'kbld', 'bundle');
    await mkdir(join(dir, 'config'), { recursive: true });
    await writeFile(
      join(dir, 'config', 'pod.yaml'),
      `apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    image: ${registry}/devpkg-it/dep-${run}:v1\n`,
    );
    const r = await pushBundle({ bundleDir: dir, repository: parseRepository(`${registry}/devpkg-it/kbld-${run}`), tag: '1.0.0', lockImages: true, imgpkg });
    const lock = await readFile(join(dir, '.imgpkg', 'images.yml'), 'utf8');
    expect(lock).toContain('kind: ImagesLock');
    expect(lock).toContain(`image: ${dep.image}`);
    expect((await skopeoInspect(`${registry}/devpkg-it/kbld-${run}:1.0.0`)).Digest).toBe(r.digest);
  });
});

describe('push-command', () => {
  test('values arrive as environment variables, the digest is read from the registry', async () => {
    const repository = `${harnessRegistry()}/devpkg-it/cmd-${run}`;
    const cwd = join(work, 'cmd');
    await mkdir(cwd);
    // A package name that would run a command if devpkg spliced it into the shell text.
    const hostile = 'antrea $(touch pwned) `touch pwned2`; touch pwned3';
    const command =
      'imgpkg push -b "$DEVPKG_IMAGE" -f "$DEVPKG_BUNDLE_DIR" >/dev/null && ' +
      'printf "%s\\n" "$DEVPKG_REGISTRY" "$DEVPKG_PACKAGE" "$DEVPKG_VERSION" "$DEVPKG_TAG" "$DEVPKG_IMAGE" "$DEVPKG_BUNDLE_DIR" > env.txt';
    const r = await pushBundle({
      bundleDir,
      repository: parseRepository(repository),
      tag: '1.2.3_dev.3',
      pushCommand: command,
      cwd,
      env: { package: hostile, version: '1.2.3+dev.3' },
    });
    expect((await readFile(join(cwd, 'env.txt'), 'utf8')).split('\n')).toEqual([
      repository,
      hostile,
      '1.2.3+dev.3',
      '1.2.3_dev.3',
      `${repository}:1.2.3_dev.3`,
      bundleDir,
      '',
    ]);
    for (const f of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(cwd, f))).toBe(false);
    const info = await skopeoInspect(`${repository}:1.2.3_dev.3`);
    expect(r.digest).toBe(info.Digest);
    expect(r.image).toBe(`${repository}@${info.Digest}`);
    expect(info.Labels?.['dev.carvel.imgpkg.bundle']).toBe('true');
  });

  test('a failing push command is an error with its exit code and output', async () => {
    await expect(
      pushBundle({
        bundleDir,
        repository: parseRepository(`${harnessRegistry()}/devpkg-it/fail-${run}`),
        tag: 't',
        pushCommand: 'echo "make: *** No rule to make target push-package" >&2; exit 2',
      }),
    ).rejects.toThrow(/push command `.*` failed \(exit 2\):\n.*No rule to make target push-package/s);
  });

  test('the command pushed nothing under that tag: the registry says so', async () => {
    await expect(
      pushBundle({ bundleDir, repository: parseRepository(`${harnessRegistry()}/devpkg-it/none-${run}`), tag: 't', pushCommand: 'true' }),
    ).rejects.toThrow(/^push command `true` succeeded, but registry [^ ]+ has no tag t in devpkg-it\/none-[0-9a-f]+: the command must push the bundle to \$DEVPKG_IMAGE \([^ ]+\/devpkg-it\/none-[0-9a-f]+:t\)$/);
  });
});

describe('registry with basic auth (htpasswd, bcrypt)', () => {
  test('right credentials: imgpkg path and push-command path both push', async () => {
    const repository = `${authRegistry.host}/devpkg-it/auth-${run}`;
    const credentials = { username: USER, password: PASSWORD };
    const r = await pushBundle({ bundleDir, repository: parseRepository(repository), tag: '1.0.0', credentials, imgpkg });
    const info = await skopeoInspect(`${repository}:1.0.0`, `${USER}:${PASSWORD}`);
    expect(info.Digest).toBe(r.digest);
    expect(info.Labels?.['dev.carvel.imgpkg.bundle']).toBe('true');

    const viaCmd = await pushBundle({
      bundleDir,
      repository: parseRepository(repository),
      tag: '1.0.0-cmd',
      credentials,
      pushCommand: 'imgpkg push -b "$DEVPKG_IMAGE" -f "$DEVPKG_BUNDLE_DIR"',
    });
    expect(viaCmd.digest).toBe((await skopeoInspect(`${repository}:1.0.0-cmd`, `${USER}:${PASSWORD}`)).Digest);
  });

  test.each([
    ['imgpkg', undefined],
    ['push-command', 'imgpkg push -b "$DEVPKG_IMAGE" -f "$DEVPKG_BUNDLE_DIR"'],
  ])('%s: wrong password refused, naming registry and user, never the password', async (_name, pushCommand) => {
    const logs: string[] = [];
    const err = (await pushBundle({
      bundleDir,
      repository: parseRepository(`${authRegistry.host}/devpkg-it/auth-${run}`),
      tag: 'wrong',
      credentials: { username: USER, password: WRONG_PASSWORD },
      pushCommand,
      imgpkg,
      log: (m) => logs.push(m),
    }).catch((e: Error) => e)) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toContain(`registry ${authRegistry.host} refused the credentials of user "${USER}"`);
    const everything = `${err.message}\n${String(err.stack)}\n${logs.join('\n')}`;
    expect(everything).not.toContain(WRONG_PASSWORD);
    expect(everything).not.toContain(Buffer.from(`${USER}:${WRONG_PASSWORD}`).toString('base64'));
  });

  test('no credentials: says the registry needs them', async () => {
    await expect(
      pushBundle({ bundleDir, repository: parseRepository(`${authRegistry.host}/devpkg-it/auth-${run}`), tag: 'anon', imgpkg }),
    ).rejects.toThrow(`registry ${authRegistry.host} requires credentials and none were given`);
  });

  test('CLI: password from DEVPKG_REGISTRY_PASSWORD; a wrong one is not echoed', async () => {
    const err: string[] = [];
    const out: string[] = [];
    const code = await runCli(
      ['push', '--bundle', bundleDir, '--image', `${authRegistry.host}/devpkg-it/auth-${run}:cli`, '--registry-username', USER],
      { stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), env: { ...process.env, DEVPKG_REGISTRY_PASSWORD: WRONG_PASSWORD }, cwd: work },
    );
    expect(code).toBe(1);
    expect(out.join('')).toBe('');
    expect(err.join('')).toContain(`refused the credentials of user "${USER}"`);
    expect(err.join('')).not.toContain(WRONG_PASSWORD);
  });
});

describe('unreachable registry (closed port)', () => {
  test.each([
    ['imgpkg', undefined],
    ['push-command', 'imgpkg push -b "$DEVPKG_IMAGE" -f "$DEVPKG_BUNDLE_DIR"'],
  ])('%s: names the registry and what to check', async (_name, pushCommand) => {
    const host = `127.0.0.1:${await freePort()}`;
    await expect(pushBundle({ bundleDir, repository: parseRepository(`${host}/devpkg-it/x`), tag: 't', pushCommand, imgpkg })).rejects.toThrow(
      `registry ${host} is not reachable at http://${host}: ECONNREFUSED; check that the registry is running and that the address is right`,
    );
  });
});

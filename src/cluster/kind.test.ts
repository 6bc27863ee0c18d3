import { afterAll, describe, expect, test } from '@jest/globals';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CleanupList } from '../cleanup.js';
import { sha256 } from '../tools/checksum.js';
import { execTool, type ExecFn } from '../tools/exec.js';
import { Kind } from '../tools/kind.js';
import {
  createKindCluster,
  DEFAULT_KIND_NODE_IMAGE,
  DEFAULT_KIND_VERSION,
  ensureKind,
  kappControllerManifest,
  nodeImageFor,
  normalizeReleaseVersion,
  SetupError,
} from './kind.js';

const MANIFEST = 'apiVersion: v1\nkind: Namespace\nmetadata: {name: kapp-controller}\n';
const dir = mkdtempSync(join(tmpdir(), 'devpkg-kind-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fakeFetch(files: Record<string, string>, seen: string[] = []): typeof fetch {
  return (async (url: string) => {
    seen.push(url);
    const body = files[url];
    return body === undefined ? new Response('nope', { status: 404 }) : new Response(body, { status: 200 });
  }) as unknown as typeof fetch;
}
const rel = (v: string) => `https://github.com/carvel-dev/kapp-controller/releases/download/${v}`;

describe('normalizeReleaseVersion', () => {
  test.each([
    ['0.51.0', 'v0.51.0'],
    ['v0.51.0', 'v0.51.0'],
    [' v0.24.0 ', 'v0.24.0'],
  ])('%j', (v, want) => expect(normalizeReleaseVersion(v, 'x')).toBe(want));
  test('rejects latest', () => expect(() => normalizeReleaseVersion('latest', 'kind-version')).toThrow(/kind-version: "latest" is not a release version/));
});

describe('nodeImageFor: the pinned node image only with the kind it was built for', () => {
  test.each([
    [DEFAULT_KIND_VERSION, undefined, DEFAULT_KIND_NODE_IMAGE],
    ['v0.30.0', undefined, undefined],
    ['v0.30.0', 'my/node:v1', 'my/node:v1'],
    [DEFAULT_KIND_VERSION, 'my/node:v1', 'my/node:v1'],
  ])('%s %s', (v, given, want) => expect(nodeImageFor(v, given)).toBe(want));
  test('the default is pinned by digest', () => expect(DEFAULT_KIND_NODE_IMAGE).toMatch(/^kindest\/node:v1\.37\.0@sha256:[0-9a-f]{64}$/));
});

describe('kappControllerManifest', () => {
  test('v0.45.0 and later: checked against checksums.txt', async () => {
    const f = fakeFetch({ [`${rel('v0.51.0')}/release.yml`]: MANIFEST, [`${rel('v0.51.0')}/checksums.txt`]: `${sha256(MANIFEST)}  ./release.yml\n` });
    await expect(kappControllerManifest({ version: '0.51.0', fetch: f })).resolves.toEqual({ text: MANIFEST, source: `${rel('v0.51.0')}/release.yml` });
  });
  test('the default version is v0.51.0', async () => {
    const seen: string[] = [];
    const f = fakeFetch({ [`${rel('v0.51.0')}/release.yml`]: MANIFEST, [`${rel('v0.51.0')}/checksums.txt`]: `${sha256(MANIFEST)}  release.yml\n` }, seen);
    await kappControllerManifest({ fetch: f });
    expect(seen[0]).toBe(`${rel('v0.51.0')}/release.yml`);
  });
  test('a tampered manifest is refused', async () => {
    const f = fakeFetch({ [`${rel('v0.51.0')}/release.yml`]: `${MANIFEST}#x`, [`${rel('v0.51.0')}/checksums.txt`]: `${sha256(MANIFEST)}  release.yml\n` });
    await expect(kappControllerManifest({ version: 'v0.51.0', fetch: f })).rejects.toThrow(/\(checksums.txt\): sha256 [0-9a-f]{64} does not match the expected/);
  });
  // Before v0.45.0 checksums.txt lists the kctrl binaries only (TKG/TCE-era versions).
  const old = { [`${rel('v0.30.1')}/release.yml`]: MANIFEST, [`${rel('v0.30.1')}/checksums.txt`]: `${'a'.repeat(64)}  ./kctrl-linux-amd64\n` };
  test('before v0.45.0 without kapp-controller-sha256: refused, naming the input', async () => {
    await expect(kappControllerManifest({ version: 'v0.30.1', fetch: fakeFetch(old), sleep: async () => undefined })).rejects.toThrow(
      /kapp-controller v0.30.1 release.yml: no checksum published for release.yml \(kapp-controller lists release.yml in checksums.txt from v0.45.0 on\); give its sha256 as kapp-controller-sha256/,
    );
  });
  test('before v0.45.0 with kapp-controller-sha256: used; a wrong sum refused', async () => {
    await expect(kappControllerManifest({ version: 'v0.30.1', sha256: sha256(MANIFEST), fetch: fakeFetch(old) })).resolves.toMatchObject({ text: MANIFEST });
    await expect(kappControllerManifest({ version: 'v0.30.1', sha256: 'f'.repeat(64), fetch: fakeFetch(old) })).rejects.toThrow(/sha256 [0-9a-f]{64} does not match the expected f{64}/);
  });
  test('a mirror URL: checked against the checksums.txt beside it, or the sha256', async () => {
    const url = 'https://mirror.example/kc/v0.51.0/release.yml';
    await expect(kappControllerManifest({ manifest: url, fetch: fakeFetch({ [url]: MANIFEST, 'https://mirror.example/kc/v0.51.0/checksums.txt': `${sha256(MANIFEST)}  release.yml\n` }) })).resolves.toEqual({
      text: MANIFEST,
      source: url,
    });
    await expect(kappControllerManifest({ manifest: url, sha256: sha256(MANIFEST), fetch: fakeFetch({ [url]: MANIFEST }), sleep: async () => undefined })).resolves.toMatchObject({ text: MANIFEST });
    await expect(kappControllerManifest({ manifest: url, fetch: fakeFetch({ [url]: MANIFEST }), sleep: async () => undefined })).rejects.toThrow(/give its sha256 as kapp-controller-sha256/);
  });
  test('a file (air-gapped): read relative to the repository; checked when a sha256 is given', async () => {
    writeFileSync(join(dir, 'release.yml'), MANIFEST);
    await expect(kappControllerManifest({ manifest: 'release.yml', cwd: dir })).resolves.toEqual({ text: MANIFEST, source: join(dir, 'release.yml') });
    await expect(kappControllerManifest({ manifest: 'release.yml', cwd: dir, sha256: 'f'.repeat(64) })).rejects.toThrow(/does not match/);
    await expect(kappControllerManifest({ manifest: 'nope.yml', cwd: dir })).rejects.toThrow(`kapp-controller-manifest: cannot read ${join(dir, 'nope.yml')}: ENOENT`);
  });
});

/** A kind + docker stand-in recording argv. */
function fakeTools(o: { kindVersion?: string; createFails?: string } = {}) {
  const calls: string[][] = [];
  const exec: ExecFn = async (cmd, args) => {
    calls.push([cmd, ...args]);
    if (args[0] === 'version' && cmd.endsWith('kind')) {
      return o.kindVersion ? { code: 0, stdout: `kind v${o.kindVersion} go1.25 linux/amd64\n`, stderr: '' } : { code: 127, stdout: '', stderr: 'not found' };
    }
    if (cmd === 'docker' && args[0] === 'version') return { code: 0, stdout: '27.0.0\n', stderr: '' };
    if (args[0] === 'create' && o.createFails) return { code: 1, stdout: '', stderr: o.createFails };
    return { code: 0, stdout: '', stderr: '' };
  };
  return { exec, calls };
}

describe('ensureKind', () => {
  test('the kind on PATH at the pinned version is used', async () => {
    const t = fakeTools({ kindVersion: '0.33.0' });
    const kind = await ensureKind({ exec: t.exec, toolCache: { find: () => { throw new Error('no tool cache wanted'); } } as never });
    expect(kind.version).toBe('0.33.0');
  });
  test('another version on PATH: the pinned release is installed into the tool cache', async () => {
    const t = fakeTools({ kindVersion: '0.24.0' });
    const asked: string[] = [];
    const toolCache = {
      find: (tool: string, version: string) => (asked.push(`${tool}@${version}`), '/cache/kind/0.33.0/x64'),
      cacheFile: async () => '',
    };
    const logs: string[] = [];
    const kind = await ensureKind({ exec: t.exec, toolCache, arch: 'x64', platform: 'linux', log: (m) => logs.push(m) });
    expect(asked).toEqual(['kind@0.33.0']);
    expect(logs[0]).toBe('kind v0.33.0: PATH has v0.24.0; installing the release into the tool cache');
    // The cached binary is what runs next (and what the post step gets).
    expect(kind.path).toBe('/cache/kind/0.33.0/x64/kind');
    expect(t.calls.at(-1)).toEqual(['/cache/kind/0.33.0/x64/kind', 'version']);
  });
});

describe('ensureKind with kind-sha256: the given sum replaces the release listing', () => {
  const BIN = '#!/bin/sh\necho "kind v0.29.0 go1.24 linux/amd64"\n';
  const base = 'https://github.com/kubernetes-sigs/kind/releases/download/v0.29.0';
  const savedCache = process.env.RUNNER_TOOL_CACHE;
  afterAll(() => {
    if (savedCache === undefined) delete process.env.RUNNER_TOOL_CACHE;
    else process.env.RUNNER_TOOL_CACHE = savedCache;
  });
  const install = (sum: string, seen: string[]) => {
    process.env.RUNNER_TOOL_CACHE = mkdtempSync(join(dir, 'cache-'));
    // No kind on PATH; the installed binary itself is run for its version.
    const exec: ExecFn = async (cmd, args, o) => (cmd === 'kind' ? { code: 127, stdout: '', stderr: 'not found' } : execTool(cmd, args, o));
    return ensureKind({ version: 'v0.29.0', sha256: sum, exec, arch: 'x64', platform: 'linux', fetch: fakeFetch({ [`${base}/kind-linux-amd64`]: BIN }, seen), log: () => undefined });
  };
  test('the right sum: installed from the binary alone (no .sha256sum asked for)', async () => {
    const seen: string[] = [];
    const kind = await install(sha256(BIN), seen);
    expect(kind.path).toBe(join(process.env.RUNNER_TOOL_CACHE!, 'kind', '0.29.0', 'x64', 'kind'));
    expect(kind.version).toBe('0.29.0');
    expect(seen).toEqual([`${base}/kind-linux-amd64`]);
  });
  test('a wrong sum: refused naming both sums and kind-sha256; nothing cached', async () => {
    await expect(install('0'.repeat(64), [])).rejects.toThrow(
      `kind v0.29.0 from ${base}/kind-linux-amd64 has sha256 ${sha256(BIN)}, expected ${'0'.repeat(64)} (kind-sha256, CLI: --kind-sha256); not installing it`,
    );
    expect(readdirSync(process.env.RUNNER_TOOL_CACHE!)).toEqual([]);
  });
});

describe('createKindCluster: every step named; what needs no cluster is checked first', () => {
  // The temp folders createKindCluster records are the post step's to remove; here, the test's.
  const lists: CleanupList[] = [];
  const track = (c: CleanupList) => (lists.push(c), c);
  afterEach(() => {
    for (const item of lists.splice(0).flatMap((c) => c.list())) {
      if (item.kind === 'temp-dir') rmSync(item.path, { recursive: true, force: true });
    }
  });
  const kindStub = (exec: ExecFn) => async () => Kind.create(exec, '/cache/kind');
  const base = (exec: ExecFn, cleanup: CleanupList) => ({
    exec,
    cleanup: track(cleanup),
    name: 'devpkg-1-1',
    cwd: dir,
    log: () => undefined,
    ensureKind: kindStub(exec),
    fetch: fakeFetch({ [`${rel('v0.51.0')}/release.yml`]: MANIFEST, [`${rel('v0.51.0')}/checksums.txt`]: `${sha256(MANIFEST)}  release.yml\n` }),
  });

  test('a bad kind-config fails at "kind config" and creates no cluster', async () => {
    writeFileSync(join(dir, 'bad-kind.yaml'), 'kind: Pod\napiVersion: v1\n');
    const t = fakeTools({ kindVersion: '0.33.0' });
    const cleanup = new CleanupList();
    const err = (await createKindCluster({ ...base(t.exec, cleanup), kindConfig: 'bad-kind.yaml' }).catch((e) => e)) as SetupError;
    expect(err).toBeInstanceOf(SetupError);
    expect(err.step).toBe('kind config');
    expect(err.message).toMatch(/^kind config: kind-config bad-kind.yaml: kind "Pod"/);
    expect(t.calls.some((c) => c[1] === 'create')).toBe(false);
    expect(cleanup.list()).toEqual([]);
  });

  test('an unverifiable kapp-controller fails at "kapp-controller manifest" before any cluster', async () => {
    const t = fakeTools({ kindVersion: '0.33.0' });
    const cleanup = new CleanupList();
    const err = (await createKindCluster({ ...base(t.exec, cleanup), kappControllerVersion: 'v0.30.1', fetch: fakeFetch({ [`${rel('v0.30.1')}/release.yml`]: MANIFEST }) }).catch((e) => e)) as SetupError;
    expect(err.step).toBe('kapp-controller manifest');
    expect(t.calls.some((c) => c[1] === 'create')).toBe(false);
  });

  test('kind create failing (a bad node image): step "kind cluster", the cluster already recorded for cleanup with the binary that made it', async () => {
    const t = fakeTools({ kindVersion: '0.33.0', createFails: 'ERROR: failed to create cluster: failed to pull image "bad/node:v0": no such host' });
    const cleanup = new CleanupList();
    const err = (await createKindCluster({ ...base(t.exec, cleanup), nodeImage: 'bad/node:v0' }).catch((e) => e)) as SetupError;
    expect(err.step).toBe('kind cluster');
    expect(err.message).toMatch(/^kind cluster: kind create cluster devpkg-1-1 failed \(exit 1\): ERROR: failed to create cluster: failed to pull image "bad\/node:v0"/);
    const create = t.calls.find((c) => c[1] === 'create')!;
    expect(create.slice(0, 6)).toEqual(['/cache/kind', 'create', 'cluster', '--name', 'devpkg-1-1', '--image']);
    expect(create).toContain('bad/node:v0');
    expect(create[create.indexOf('--config') + 1]).toMatch(/kind-config\.yaml$/);
    expect(cleanup.list()).toContainEqual(expect.objectContaining({ kind: 'kind-cluster', name: 'devpkg-1-1', binary: '/cache/kind' }));
  });

  test('no kind-node-image with the pinned kind: the pinned node image', async () => {
    const t = fakeTools({ kindVersion: '0.33.0', createFails: 'stop here' });
    await createKindCluster(base(t.exec, new CleanupList())).catch(() => undefined);
    const create = t.calls.find((c) => c[1] === 'create')!;
    expect(create[create.indexOf('--image') + 1]).toBe(DEFAULT_KIND_NODE_IMAGE);
  });
});

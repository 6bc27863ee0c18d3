import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MANIFEST_ACCEPT, parseWwwAuthenticate, RegistryClient } from './registry.js';

describe('parseWwwAuthenticate', () => {
  test.each([
    [
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:samalba/my-app:pull,push"',
      {
        scheme: 'bearer',
        params: { realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:samalba/my-app:pull,push' },
      },
    ],
    ['Basic realm="basic-realm"', { scheme: 'basic', params: { realm: 'basic-realm' } }],
    ['Basic', { scheme: 'basic', params: {} }],
    ['Bearer realm=unquoted, service="a\\"b"', { scheme: 'bearer', params: { realm: 'unquoted', service: 'a"b' } }],
  ])('%s', (header, want) => expect(parseWwwAuthenticate(header)).toEqual(want));
  test('empty header', () => expect(parseWwwAuthenticate('')).toBeUndefined());
});

const USER = 'dev';
const PASS = 's3cr3t-p@ss';
const MANIFEST = Buffer.from('{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"}');
const DIGEST = `sha256:${createHash('sha256').update(MANIFEST).digest('hex')}`;

interface Seen {
  method: string;
  url: string;
  accept?: string;
  authorization?: string;
}

/** A tiny registry: auth mode basic | bearer | none; digest header on or off. */
async function fakeRegistry(mode: 'basic' | 'bearer' | 'none', opts: { digestHeader?: boolean } = {}) {
  const seen: Seen[] = [];
  const basic = `Basic ${Buffer.from(`${USER}:${PASS}`).toString('base64')}`;
  let base = '';
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', accept: req.headers.accept, authorization: req.headers.authorization });
    if (req.url?.startsWith('/token')) {
      if (req.headers.authorization !== basic) return res.writeHead(401).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ token: 'tok-123' }));
    }
    const ok = mode === 'none' || (mode === 'basic' ? req.headers.authorization === basic : req.headers.authorization === 'Bearer tok-123');
    if (!ok) {
      const challenge = mode === 'basic' ? 'Basic realm="test"' : `Bearer realm="${base}/token",service="fake"`;
      return res.writeHead(401, { 'www-authenticate': challenge }).end();
    }
    if (req.url === '/v2/') return res.writeHead(200).end('{}');
    if (req.url === '/v2/devpkg/x/manifests/1.0.0_dev.1') {
      const headers: Record<string, string> = { 'content-type': 'application/vnd.oci.image.manifest.v1+json' };
      if (opts.digestHeader !== false) headers['docker-content-digest'] = DIGEST;
      res.writeHead(200, headers);
      return res.end(req.method === 'HEAD' ? undefined : MANIFEST);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  const close = () => new Promise<void>((r) => server.close(() => r()));
  running.push(close);
  return { host: `127.0.0.1:${port}`, seen, close };
}

/** The fake registries a test started, closed after it (closing one twice is harmless). */
const running: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((close) => close()));
});

describe('RegistryClient against a local HTTP registry', () => {
  test('base URL: plain HTTP for loopback, HTTPS otherwise, override', () => {
    expect(new RegistryClient('127.0.0.1:5000').baseUrl).toBe('http://127.0.0.1:5000');
    expect(new RegistryClient('ghcr.io').baseUrl).toBe('https://ghcr.io');
    expect(new RegistryClient('docker.io').baseUrl).toBe('https://registry-1.docker.io');
    expect(new RegistryClient('reg.example.com:5000', { plainHttp: true }).baseUrl).toBe('http://reg.example.com:5000');
  });

  test('HEAD with every manifest type accepted; digest from Docker-Content-Digest', async () => {
    const r = await fakeRegistry('none');
    const digest = await new RegistryClient(r.host).resolveDigest('devpkg/x', '1.0.0_dev.1');
    expect(digest).toBe(DIGEST);
    const head = r.seen.find((s) => s.method === 'HEAD');
    expect(head?.accept).toBe(MANIFEST_ACCEPT);
    for (const t of ['oci.image.manifest.v1', 'oci.image.index.v1', 'docker.distribution.manifest.v2', 'docker.distribution.manifest.list.v2']) {
      expect(head?.accept).toContain(t);
    }
  });

  test('without the header, the digest is the sha256 of the served bytes', async () => {
    const r = await fakeRegistry('none', { digestHeader: false });
    expect(await new RegistryClient(r.host).resolveDigest('devpkg/x', '1.0.0_dev.1')).toBe(DIGEST);
    expect(r.seen.map((s) => s.method)).toEqual(['HEAD', 'GET']);
  });

  test('Basic challenge answered with the credentials', async () => {
    const r = await fakeRegistry('basic');
    const c = new RegistryClient(r.host, { credentials: { username: USER, password: PASS } });
    await c.check('devpkg/x');
    expect(await c.resolveDigest('devpkg/x', '1.0.0_dev.1')).toBe(DIGEST);
  });

  test('Bearer challenge: token fetched with Basic credentials and the repository scope', async () => {
    const r = await fakeRegistry('bearer');
    const c = new RegistryClient(r.host, { credentials: { username: USER, password: PASS } });
    expect(await c.resolveDigest('devpkg/x', '1.0.0_dev.1')).toBe(DIGEST);
    const tokenReq = r.seen.find((s) => s.url.startsWith('/token'));
    const q = new URL(`http://x${tokenReq?.url}`).searchParams;
    expect(q.get('service')).toBe('fake');
    expect(q.getAll('scope')).toEqual(['repository:devpkg/x:pull']);
  });

  test.each(['basic', 'bearer'] as const)('%s: wrong password is refused, naming the user, never the password', async (mode) => {
    const r = await fakeRegistry(mode);
    const c = new RegistryClient(r.host, { credentials: { username: USER, password: 'wrong-password-xyz' } });
    const err = await c.check('devpkg/x').catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(new RegExp(`registry ${r.host} refused the credentials of user "dev"`));
    expect((err as Error).message).not.toContain('wrong-password-xyz');
  });

  test('no credentials for a registry that wants them', async () => {
    const r = await fakeRegistry('basic');
    await expect(new RegistryClient(r.host).check('devpkg/x')).rejects.toThrow(/requires credentials and none were given/);
  });

  test('unknown tag: names the image', async () => {
    const r = await fakeRegistry('none');
    await expect(new RegistryClient(r.host).resolveDigest('devpkg/x', 'nope')).rejects.toThrow(/devpkg\/x:nope was not found/);
  });

  test('closed port: not reachable, names the registry', async () => {
    const r = await fakeRegistry('none');
    const host = r.host;
    await r.close();
    await expect(new RegistryClient(host).check('devpkg/x')).rejects.toThrow(
      new RegExp(`registry ${host} is not reachable at http://${host}: ECONNREFUSED; check that the registry is running`),
    );
  });
});

// Stand-ins for the servers a mode talks to, for in-process tests of what each input changes: an OCI
// registry that holds every tag at one digest, and an empty Kubernetes API server (nothing ever
// happens on it). Both record every request; both listen on 127.0.0.1 at a free port.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in registry: it answers, and holds every tag asked for at one digest. */
export async function standInRegistry(requests: string[]): Promise<{ host: string; server: Server }> {
  const server = createServer((req, res) => {
    requests.push(`REGISTRY ${req.method} ${req.url}`);
    if (req.url === '/v2/') return void res.writeHead(200).end('{}');
    if (req.url!.includes('/manifests/')) return void res.writeHead(200, { 'docker-content-digest': `sha256:${'d'.repeat(64)}`, 'content-type': 'application/vnd.oci.image.manifest.v1+json' }).end('{}');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * An empty API server: every collection is an empty list, every named object is not found, no API
 * group beyond the core one is served, and a watch is held open with nothing on it.
 */
export async function emptyApiServer(requests: string[]): Promise<{ url: string; server: Server; kubeconfig: string }> {
  const server = createServer((req, res) => {
    requests.push(`API ${req.method} ${req.url}`);
    const u = new URL(req.url!, 'http://stand-in');
    const json = (code: number, o: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(o));
    if (u.searchParams.get('watch') === 'true') return void res.writeHead(200, { 'content-type': 'application/json' }).flushHeaders();
    const notFound = () => json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'not in the stand-in' });
    if (req.method !== 'GET') return notFound();
    if (u.pathname === '/api') return json(200, { kind: 'APIVersions', versions: ['v1'] });
    if (u.pathname === '/apis') return json(200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
    // What follows /api/v1 or /apis/GROUP/VERSION: PLURAL or namespaces/NS/PLURAL is a collection.
    const m = /^\/(?:api\/v1|apis\/[^/]+\/[^/]+)(\/.*)?$/.exec(u.pathname);
    const rest = (m?.[1] ?? '').split('/').filter(Boolean);
    const collection = rest.length === 1 || (rest.length === 3 && rest[0] === 'namespaces');
    if (m && collection) return json(200, { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: [] });
    return notFound();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, kubeconfig: kubeconfigFor(url) };
}

/** A kubeconfig whose one context talks to the API server at `url` with a token. */
export function kubeconfigFor(url: string): string {
  return `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "${url}", insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n`;
}

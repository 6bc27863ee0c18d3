import { createHash } from 'node:crypto';
import { DevpkgError } from '../errors.js';
import { apiHost, usesPlainHttp } from './reference.js';

export interface RegistryCredentials {
  username: string;
  password: string;
}

export interface RegistryClientOptions {
  credentials?: RegistryCredentials;
  /** Force plain HTTP (true) or HTTPS (false); default: go-containerregistry's rule (usesPlainHttp). */
  plainHttp?: boolean;
  /** Per-request deadline; default 30 s. */
  timeoutMs?: number;
  /** Injected for tests; default: Node's global fetch. */
  fetch?: typeof fetch;
}

/** Every manifest type a bundle or image can be served as; the digest is of whichever comes back. */
export const MANIFEST_ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');

export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

/**
 * Parses a WWW-Authenticate header (RFC 7235): `Bearer realm="...",service="...",scope="a:b:pull,push"`.
 * Quoted values may contain commas, so this is a small tokenizer, not a split.
 */
export function parseWwwAuthenticate(header: string): AuthChallenge | undefined {
  const m = /^\s*([A-Za-z][A-Za-z0-9_-]*)\s*(.*)$/s.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /\s*([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))\s*,?/gy;
  const rest = m[2];
  for (let p = re.exec(rest); p && p[0] !== ''; p = re.exec(rest)) {
    params[p[1].toLowerCase()] = p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : (p[3] ?? '');
  }
  return { scheme: m[1].toLowerCase(), params };
}

function basicHeader(c: RegistryCredentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`, 'utf8').toString('base64')}`;
}

function describeCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return `${cause.code}${cause.message && !cause.message.includes(cause.code) ? ` (${cause.message})` : ''}`;
  if (cause?.message) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/**
 * A small OCI distribution client on Node's fetch: enough to check that a registry answers,
 * that credentials are accepted, and to read a manifest's digest. Credentials only ever go
 * into Authorization headers; no message built here contains the password.
 */
export class RegistryClient {
  readonly host: string;
  readonly baseUrl: string;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly credentials?: RegistryCredentials;
  /** Authorization per scope once a challenge has been answered, so later calls skip the 401. */
  private readonly authCache = new Map<string, string>();

  constructor(host: string, opts: RegistryClientOptions = {}) {
    this.host = host;
    const plain = opts.plainHttp ?? usesPlainHttp(host);
    this.baseUrl = `${plain ? 'http' : 'https'}://${apiHost(host)}`;
    this.fetchFn = opts.fetch ?? fetch;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.credentials = opts.credentials;
  }

  /**
   * `GET /v2/`, answering an auth challenge with the credentials for the given repository scope.
   * Throws a DevpkgError when the registry cannot be reached or refuses the credentials.
   */
  async check(repoPath: string, actions: 'pull' | 'pull,push' = 'pull,push'): Promise<void> {
    const res = await this.request('GET', '/v2/', {}, `repository:${repoPath}:${actions}`);
    await res.body?.cancel();
    if (res.status === 404) {
      throw new DevpkgError(`${this.baseUrl} does not serve the registry API (GET /v2/ gave 404); check the registry address ${this.host}`);
    }
    if (!res.ok) throw this.httpError('GET /v2/', res.status);
  }

  /**
   * The digest of `repoPath:reference` as the registry computes it: a HEAD with every manifest
   * media type accepted, reading Docker-Content-Digest; when a registry leaves that header
   * out, a GET and the sha256 of the exact bytes it served.
   */
  async resolveDigest(repoPath: string, reference: string): Promise<string> {
    const url = `/v2/${repoPath}/manifests/${encodeURIComponent(reference)}`;
    const scope = `repository:${repoPath}:pull`;
    const head = await this.request('HEAD', url, { Accept: MANIFEST_ACCEPT }, scope);
    if (head.status === 404) {
      throw new DevpkgError(`${this.host}/${repoPath}:${reference} was not found in the registry; did the push succeed?`);
    }
    if (!head.ok) throw this.httpError(`HEAD ${url}`, head.status);
    const digest = head.headers.get('docker-content-digest');
    if (digest && /^sha256:[a-f0-9]{64}$/.test(digest)) return digest;
    const get = await this.request('GET', url, { Accept: MANIFEST_ACCEPT }, scope);
    if (!get.ok) throw this.httpError(`GET ${url}`, get.status);
    const body = Buffer.from(await get.arrayBuffer());
    return `sha256:${createHash('sha256').update(body).digest('hex')}`;
  }

  /** Does the registry hold manifest `digest` in `repoPath` (a HEAD by digest: 404 is no)? */
  async hasManifest(repoPath: string, digest: string): Promise<boolean> {
    const url = `/v2/${repoPath}/manifests/${encodeURIComponent(digest)}`;
    const head = await this.request('HEAD', url, { Accept: MANIFEST_ACCEPT }, `repository:${repoPath}:pull`);
    await head.body?.cancel();
    if (head.status === 404) return false;
    if (!head.ok) throw this.httpError(`HEAD ${url}`, head.status);
    return true;
  }

  private httpError(what: string, status: number): DevpkgError {
    if (status === 401 || status === 403) return this.authError(status);
    return new DevpkgError(`registry ${this.host}: ${what} answered HTTP ${status}`);
  }

  private authError(status: number, detail = ''): DevpkgError {
    const who = this.credentials
      ? `refused the credentials of user "${this.credentials.username}"`
      : 'requires credentials and none were given';
    const fix = this.credentials
      ? 'check the username and password (registry-username / registry-password, or DEVPKG_REGISTRY_PASSWORD for the CLI) and that the user may push there'
      : 'set registry-username and registry-password (CLI: --registry-username and DEVPKG_REGISTRY_PASSWORD)';
    return new DevpkgError(`registry ${this.host} ${who} (HTTP ${status}${detail}); ${fix}`, { exitCode: 1 });
  }

  private async send(method: string, url: string, headers: Record<string, string>): Promise<Response> {
    try {
      return await this.fetchFn(url, { method, headers, redirect: 'follow', signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      const why = describeCause(err);
      const tlsHint = /EPROTO|wrong version number|SSL|TLS/i.test(why) && this.baseUrl.startsWith('https:')
        ? '; the registry may speak plain HTTP: use the plainHttp option (CLI: --plain-http)'
        : '';
      throw new DevpkgError(
        `registry ${this.host} is not reachable at ${this.baseUrl}: ${why}; check that the registry is running and ` +
          `that the address is right${tlsHint}`,
        { cause: err },
      );
    }
  }

  /** One request, answering at most one 401 challenge (Basic or Bearer token). */
  private async request(method: string, path: string, headers: Record<string, string>, scope: string): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    const cached = this.authCache.get(scope);
    const first = await this.send(method, url, cached ? { ...headers, Authorization: cached } : headers);
    if (first.status !== 401) return first;
    await first.body?.cancel();
    const challenge = parseWwwAuthenticate(first.headers.get('www-authenticate') ?? '');
    let authorization: string;
    if (challenge?.scheme === 'bearer' && challenge.params.realm) {
      authorization = `Bearer ${await this.token(challenge, scope)}`;
    } else if (this.credentials && (challenge?.scheme === 'basic' || challenge === undefined)) {
      authorization = basicHeader(this.credentials);
    } else {
      throw this.authError(401);
    }
    const second = await this.send(method, url, { ...headers, Authorization: authorization });
    if (second.status === 401) {
      await second.body?.cancel();
      throw this.authError(401);
    }
    this.authCache.set(scope, authorization);
    return second;
  }

  /** The distribution token flow: GET realm?service=..&scope=.., with Basic credentials if given. */
  private async token(challenge: AuthChallenge, scope: string): Promise<string> {
    const realm = new URL(challenge.params.realm);
    if (challenge.params.service) realm.searchParams.set('service', challenge.params.service);
    for (const s of new Set([scope, ...(challenge.params.scope ? [challenge.params.scope] : [])])) {
      realm.searchParams.append('scope', s);
    }
    const headers: Record<string, string> = this.credentials ? { Authorization: basicHeader(this.credentials) } : {};
    let res: Response;
    try {
      res = await this.fetchFn(realm, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (err) {
      throw new DevpkgError(
        `registry ${this.host}: its token service ${realm.origin}${realm.pathname} is not reachable: ${describeCause(err)}`,
        { cause: err },
      );
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw this.authError(res.status, ' from its token service');
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new DevpkgError(`registry ${this.host}: token service ${realm.origin}${realm.pathname} answered HTTP ${res.status}`);
    }
    const body = (await res.json().catch(() => ({}))) as { token?: string; access_token?: string };
    const token = body.token ?? body.access_token;
    if (!token) throw new DevpkgError(`registry ${this.host}: token service ${realm.origin}${realm.pathname} returned no token`);
    return token;
  }
}

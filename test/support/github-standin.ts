/**
 * A stand-in for the GitHub REST endpoints devpkg uses (issue comments and pulls), on
 * node:http with in-memory state. It is not GitHub: it implements just enough of the
 * documented behaviour (Link-header pagination, status codes, GitHub's 65536-character body
 * limit, error bodies) for the report code to be tested against a real HTTP client.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GithubContext } from '../../src/action/context.js';
import { createOctokit, type GitHubClient } from '../../src/report/comment.js';

export interface StandinComment {
  id: number;
  issue_number: number;
  body: string;
  user: { login: string; type: string };
  created_at: string;
  updated_at: string;
  html_url: string;
}

export type Operation = 'list' | 'create' | 'update' | 'delete' | 'pull';

export interface StandinRelease {
  id: number;
  tag_name: string;
  name: string;
  body: string;
  draft: boolean;
  prerelease: boolean;
  html_url: string;
  upload_url: string;
  assets: Array<{ id: number; name: string; size: number; browser_download_url: string; data: Buffer }>;
}

export interface StandinRequest {
  method: string;
  path: string;
  authorization?: string;
}

export class GitHubStandin {
  readonly comments = new Map<number, StandinComment>();
  readonly requests: StandinRequest[] = [];
  /** Pull requests by number: head SHA, for the workflow_run check, and head label (`owner:branch`) for `GET /pulls?head=`. */
  readonly pulls = new Map<number, { headSha: string; head?: string }>();
  /** Operations that answer 403 as GitHub does for a read-only (fork) token. */
  readonly forbidden = new Set<Operation>();
  /** Milliseconds every response waits; widens race windows in tests. */
  delayMs = 0;
  /** Statuses the next requests answer with, one each (e.g. 502 for a flaky proxy). */
  readonly failNext: number[] = [];
  /**
   * The runner's OIDC token service (ACTIONS_ID_TOKEN_REQUEST_URL / _TOKEN, what a job gets when it
   * is granted `id-token: write`): the claims of the tokens it issues. Not signed (nothing here
   * checks a signature); the header, `iss`, `aud`, `iat` and `exp` are set as GitHub's are.
   */
  oidcClaims: Record<string, unknown> = {};
  readonly oidcRequestToken = 'standin-oidc-request-token';
  /** Releases by id (the release workflow's), and git refs (`refs/tags/v1` -> commit) made through the API. */
  readonly releases = new Map<number, StandinRelease>();
  readonly refs = new Map<string, string>();
  private nextId = 1000;
  private server?: Server;
  url = '';

  /** ACTIONS_ID_TOKEN_REQUEST_URL as the runner gives it (it already has a query: callers append `&audience=`). */
  get oidcRequestUrl(): string {
    return `${this.url}/_standin/oidc/token?api-version=2.0`;
  }

  constructor(
    readonly owner = 'example',
    readonly repo = 'tce',
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => send(res, 500, { message: String(err) }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  /** Adds a comment as if someone had posted it earlier. */
  seed(issue: number, body: string, login = 'someone'): StandinComment {
    const now = new Date().toISOString();
    const id = this.nextId++;
    const c: StandinComment = {
      id,
      issue_number: issue,
      body,
      user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
      created_at: now,
      updated_at: now,
      html_url: `https://github.example/${this.owner}/${this.repo}/pull/${issue}#issuecomment-${id}`,
    };
    this.comments.set(id, c);
    return c;
  }

  commentsOn(issue: number): StandinComment[] {
    return [...this.comments.values()].filter((c) => c.issue_number === issue).sort((a, b) => a.id - b.id);
  }

  count(method: string, pathPattern: RegExp): number {
    return this.requests.filter((r) => r.method === method && pathPattern.test(r.path)).length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requested = new URL(req.url ?? '/', this.url);
    const url = new URL(requested.href);
    // GitHub Enterprise Server serves the REST API under /api/v3.
    if (url.pathname.startsWith('/api/v3/')) url.pathname = url.pathname.slice('/api/v3'.length);
    const method = req.method ?? 'GET';
    this.requests.push({ method, path: requested.pathname + requested.search, authorization: req.headers.authorization });
    const raw = await readBody(req);
    const body = raw.toString('utf8');
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const fail = this.failNext.shift();
    if (fail !== undefined) return send(res, fail, { message: `stand-in: injected ${fail}` });
    const prefix = `/repos/${this.owner}/${this.repo}`;
    const path = url.pathname;
    let m: RegExpMatchArray | null;
    const forbid = (op: Operation): boolean => {
      if (!this.forbidden.has(op)) return false;
      send(res, 403, {
        message: 'Resource not accessible by integration',
        documentation_url: 'https://docs.github.com/rest/issues/comments#create-an-issue-comment',
        status: '403',
      });
      return true;
    };

    if ((m = path.match(/^\/uploads\/repos\/([^/]+)\/([^/]+)\/releases\/(\d+)\/assets$/)) && method === 'POST') {
      // uploads.github.com's endpoint (upload_url), here under /uploads: the body is the file.
      const release = `/repos/${m[1]}/${m[2]}` === prefix ? this.releases.get(Number(m[3])) : undefined;
      if (!release) return send(res, 404, { message: 'Not Found' });
      const name = url.searchParams.get('name');
      if (!name) return send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'ReleaseAsset', code: 'missing', field: 'name' }] });
      if (release.assets.some((a) => a.name === name)) return send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'ReleaseAsset', code: 'already_exists', field: 'name' }] });
      const data = raw;
      const asset = { id: this.nextId++, name, size: data.length, browser_download_url: `https://github.example/${this.owner}/${this.repo}/releases/download/${release.tag_name}/${name}`, data };
      release.assets.push(asset);
      return send(res, 201, { ...asset, data: undefined });
    }
    if (path === '/_standin/oidc/token' && method === 'GET') {
      if (req.headers.authorization?.toLowerCase() !== `bearer ${this.oidcRequestToken}`) return send(res, 401, { message: 'Bad credentials' });
      const now = Math.floor(Date.now() / 1000);
      const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
      const claims = { iss: `${this.url}/_standin/oidc`, aud: url.searchParams.get('audience') ?? `https://github.example/${this.owner}`, iat: now, nbf: now, exp: now + 300, ...this.oidcClaims };
      return send(res, 200, { value: `${b64({ typ: 'JWT', alg: 'RS256', kid: 'standin' })}.${b64(claims)}.${Buffer.from('not signed').toString('base64url')}` });
    }
    if ((m = path.match(/^\/repos\/([^/]+)\/([^/]+)\//)) && `/repos/${m[1]}/${m[2]}` !== prefix) {
      return send(res, 404, { message: 'Not Found' });
    }
    if ((m = path.match(new RegExp(`^${prefix}/issues/(\\d+)/comments$`)))) {
      const issue = Number(m[1]);
      if (method === 'GET') {
        if (forbid('list')) return;
        const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30) || 30);
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1) || 1);
        const all = this.commentsOn(issue);
        const last = Math.max(1, Math.ceil(all.length / perPage));
        const link = (p: number, rel: string): string => {
          const u = new URL(requested.href);
          u.searchParams.set('per_page', String(perPage));
          u.searchParams.set('page', String(p));
          return `<${u.href}>; rel="${rel}"`;
        };
        const links: string[] = [];
        if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
        if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
        const headers: Record<string, string> = links.length ? { link: links.join(', ') } : {};
        return send(res, 200, all.slice((page - 1) * perPage, page * perPage), headers);
      }
      if (method === 'POST') {
        if (forbid('create')) return;
        const text = validBody(res, body);
        if (text === undefined) return;
        return send(res, 201, this.seed(issue, text, 'github-actions[bot]'));
      }
    }
    if ((m = path.match(new RegExp(`^${prefix}/issues/comments/(\\d+)$`)))) {
      const c = this.comments.get(Number(m[1]));
      if (method === 'PATCH') {
        if (forbid('update')) return;
        if (!c) return send(res, 404, { message: 'Not Found' });
        const text = validBody(res, body);
        if (text === undefined) return;
        c.body = text;
        c.updated_at = new Date().toISOString();
        return send(res, 200, c);
      }
      if (method === 'DELETE') {
        if (forbid('delete')) return;
        if (!c) return send(res, 404, { message: 'Not Found' });
        this.comments.delete(c.id);
        res.writeHead(204).end();
        return;
      }
    }
    if ((m = path.match(new RegExp(`^${prefix}/releases/tags/(.+)$`))) && method === 'GET') {
      const release = [...this.releases.values()].find((r) => r.tag_name === decodeURIComponent(m![1]!));
      return release ? send(res, 200, publicRelease(release)) : send(res, 404, { message: 'Not Found' });
    }
    if (path === `${prefix}/releases` && method === 'POST') {
      const f = JSON.parse(body || '{}') as Partial<StandinRelease>;
      if (!f.tag_name) return send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Release', code: 'missing_field', field: 'tag_name' }] });
      if ([...this.releases.values()].some((r) => r.tag_name === f.tag_name)) return send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'Release', code: 'already_exists', field: 'tag_name' }] });
      const id = this.nextId++;
      const release: StandinRelease = {
        id,
        tag_name: f.tag_name,
        name: f.name ?? f.tag_name,
        body: f.body ?? '',
        draft: f.draft ?? false,
        prerelease: f.prerelease ?? false,
        html_url: `https://github.example/${this.owner}/${this.repo}/releases/tag/${f.tag_name}`,
        upload_url: `${this.url}/uploads${prefix}/releases/${id}/assets{?name,label}`,
        assets: [],
      };
      this.releases.set(id, release);
      return send(res, 201, publicRelease(release));
    }
    if ((m = path.match(new RegExp(`^${prefix}/releases/(\\d+)$`))) && method === 'PATCH') {
      const release = this.releases.get(Number(m[1]));
      if (!release) return send(res, 404, { message: 'Not Found' });
      const f = JSON.parse(body || '{}') as Partial<StandinRelease>;
      for (const k of ['name', 'body', 'draft', 'prerelease'] as const) if (f[k] !== undefined) Object.assign(release, { [k]: f[k] });
      return send(res, 200, publicRelease(release));
    }
    if ((m = path.match(new RegExp(`^${prefix}/releases/assets/(\\d+)$`))) && method === 'DELETE') {
      const release = [...this.releases.values()].find((r) => r.assets.some((a) => a.id === Number(m![1])));
      if (!release) return send(res, 404, { message: 'Not Found' });
      release.assets = release.assets.filter((a) => a.id !== Number(m![1]));
      res.writeHead(204).end();
      return;
    }
    if ((m = path.match(new RegExp(`^${prefix}/git/matching-refs/(.+)$`))) && method === 'GET') {
      const want = `refs/${m[1]}`;
      return send(res, 200, [...this.refs.entries()].filter(([ref]) => ref.startsWith(want)).sort().map(([ref, sha]) => ({ ref, object: { sha, type: 'commit' } })));
    }
    if (path === `${prefix}/git/refs` && method === 'POST') {
      const f = JSON.parse(body || '{}') as { ref?: string; sha?: string };
      if (!f.ref?.startsWith('refs/') || !/^[0-9a-f]{40}$/.test(f.sha ?? '')) return send(res, 422, { message: 'Validation Failed' });
      if (this.refs.has(f.ref)) return send(res, 422, { message: 'Reference already exists' });
      this.refs.set(f.ref, f.sha!);
      return send(res, 201, { ref: f.ref, object: { sha: f.sha, type: 'commit' } });
    }
    if ((m = path.match(new RegExp(`^${prefix}/git/refs/(.+)$`))) && method === 'PATCH') {
      const ref = `refs/${m[1]}`;
      const f = JSON.parse(body || '{}') as { sha?: string; force?: boolean };
      if (!this.refs.has(ref)) return send(res, 422, { message: 'Reference does not exist' });
      if (!/^[0-9a-f]{40}$/.test(f.sha ?? '')) return send(res, 422, { message: 'Validation Failed' });
      this.refs.set(ref, f.sha!);
      return send(res, 200, { ref, object: { sha: f.sha, type: 'commit' } });
    }
    if (path === `${prefix}/pulls` && method === 'GET') {
      // GitHub's list filter: head=user:ref-name; state defaults to open (all stand-in pulls are open).
      if (forbid('pull')) return;
      const head = url.searchParams.get('head');
      const open = [...this.pulls.entries()].filter(([, pr]) => !head || pr.head === head);
      return send(res, 200, open.map(([number, pr]) => ({ number, state: 'open', head: { sha: pr.headSha, label: pr.head } })));
    }
    if ((m = path.match(new RegExp(`^${prefix}/pulls/(\\d+)$`))) && method === 'GET') {
      if (forbid('pull')) return;
      const pr = this.pulls.get(Number(m[1]));
      if (!pr) return send(res, 404, { message: 'Not Found' });
      return send(res, 200, { number: Number(m[1]), state: 'open', head: { sha: pr.headSha } });
    }
    send(res, 404, { message: `the stand-in does not serve ${method} ${path}` });
  }
}

function publicRelease(r: StandinRelease): Omit<StandinRelease, 'assets'> & { assets: Array<Omit<StandinRelease['assets'][number], 'data'>> } {
  return { ...r, assets: r.assets.map(({ data: _data, ...a }) => a) };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function validBody(res: ServerResponse, raw: string): string | undefined {
  const parsed = (raw ? JSON.parse(raw) : {}) as { body?: unknown };
  if (typeof parsed.body !== 'string') {
    send(res, 422, { message: 'Invalid request.\n\n"body" wasn\'t supplied.' });
    return undefined;
  }
  if (parsed.body.length > 65536) {
    send(res, 422, { message: 'Validation Failed', errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }] });
    return undefined;
  }
  return parsed.body;
}

function send(res: ServerResponse, status: number, data: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(data));
}

/** What a report test works with: a started stand-in, an Octokit for it and a temp folder. */
export interface StandinSetup {
  standin: GitHubStandin;
  octokit: GitHubClient;
  dir: string;
}

/** Starts a stand-in with a client (retry on, throttling off) and makes a temp folder whose name starts with `prefix`. */
export async function startStandin(prefix: string): Promise<StandinSetup> {
  const standin = await new GitHubStandin().start();
  const octokit = await createOctokit('test-token', standin.url, { warning: () => undefined, info: () => undefined }, { throttle: { enabled: false } });
  return { standin, octokit, dir: await mkdtemp(join(tmpdir(), prefix)) };
}

/** Stops what startStandin started and removes its folder. */
export async function stopStandin(s: Pick<StandinSetup, 'standin' | 'dir'>): Promise<void> {
  await s.standin.stop();
  await rm(s.dir, { recursive: true, force: true });
}

/** The context of a pull_request run (#7 of example/tce, run 42) reporting to the stand-in; `over` for the rest. */
export function pullRequestContext(s: Pick<StandinSetup, 'standin' | 'dir'>, over: Partial<GithubContext> & Pick<GithubContext, 'sha' | 'serverUrl'>): GithubContext {
  return {
    eventName: 'pull_request',
    event: {},
    ref: 'refs/pull/7/merge',
    owner: s.standin.owner,
    repo: s.standin.repo,
    runId: '42',
    runNumber: 42,
    runAttempt: 1,
    apiUrl: s.standin.url,
    workspace: s.dir,
    prNumber: 7,
    ...over,
  };
}

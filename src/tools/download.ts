/**
 * Every download devpkg makes (release binaries, checksum listings, kapp-controller's manifest,
 * the tanzu CLI) goes through this one retry loop. It says what it does only through `log`: the
 * CLI hands in its stderr, the action core.info. (@actions/tool-cache's own downloader writes its
 * retry notices to stdout, where `IMG=$(devpkg push ...)` would capture them.)
 *
 * Behind a proxy it goes the way @actions/tool-cache did: @actions/http-client's own rule picks
 * the proxy for a URL (https_proxy/HTTPS_PROXY for https://, http_proxy/HTTP_PROXY for http://,
 * none for a host no_proxy/NO_PROXY covers or a loopback address), and the download then runs
 * through undici's ProxyAgent. (Node's built-in fetch ignores these variables.)
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { DevpkgError, errorMessage } from '../errors.js';

export interface DownloadOptions {
  fetch?: typeof fetch;
  /** Tries in all (default 4). */
  attempts?: number;
  /** Waits between tries (tests pass a no-op). */
  sleep?: (ms: number) => Promise<void>;
  /** Where retry notices go; default stderr, never stdout. */
  log?: (m: string) => void;
  /** How the download is named in messages (default its URL). */
  what?: string;
}

/** True for answers worth asking again: 408, 429 and 5xx (pure). */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** The wait before try `attempt + 1`: 1 s, 2 s, 4 s, ... (pure). */
export function retryDelayMs(attempt: number): number {
  return 1000 * 2 ** (attempt - 1);
}

const toStderr = (m: string): void => void process.stderr.write(`${m}\n`);

/**
 * The fetch for `url`: the built-in one, or, when @actions/http-client's rule names a proxy for
 * it, undici's fetch through that proxy (its user:password included). `close` lets the proxy's
 * connections go.
 */
async function fetchFor(url: string): Promise<{ fetch: typeof fetch; close: () => Promise<void> }> {
  const { getProxyUrl } = await import('@actions/http-client');
  const proxy = getProxyUrl(url);
  if (!proxy) return { fetch, close: async () => undefined };
  const undici = await import('undici');
  const dispatcher = new undici.ProxyAgent(proxy);
  const viaProxy = (input: string | URL | Request, init?: RequestInit) =>
    undici.fetch(input as string, { ...(init as Parameters<typeof undici.fetch>[1]), dispatcher }) as unknown as Promise<Response>;
  return { fetch: viaProxy as typeof fetch, close: () => dispatcher.close() };
}

/**
 * GETs `url` and hands the answer to `take`, retrying network errors (a dropped body included)
 * and transient statuses with backoff; any other failure status throws at once, naming the URL
 * and the status.
 */
async function withRetries<T>(url: string, o: DownloadOptions, take: (res: Response) => Promise<T>): Promise<T> {
  if (o.fetch) return retrying(url, o, o.fetch, take);
  const { fetch: f, close } = await fetchFor(url);
  try {
    return await retrying(url, o, f, take);
  } finally {
    await close();
  }
}

async function retrying<T>(url: string, o: DownloadOptions, f: typeof fetch, take: (res: Response) => Promise<T>): Promise<T> {
  const attempts = o.attempts ?? 4;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const log = o.log ?? toStderr;
  const what = o.what ?? url;
  let last = '';
  for (let i = 1; i <= attempts; i++) {
    try {
      const res = await f(url, { redirect: 'follow' });
      if (res.ok) return await take(res);
      last = `HTTP ${res.status}`;
      await res.body?.cancel().catch(() => undefined);
      if (!isTransientStatus(res.status)) break;
    } catch (err) {
      last = errorMessage(err);
    }
    if (i < attempts) {
      const delay = retryDelayMs(i);
      log(`download ${what}: ${last}; trying again in ${delay / 1000}s (attempt ${i + 1} of ${attempts})`);
      await sleep(delay);
    }
  }
  throw new DevpkgError(`download ${what} (${url}) failed: ${last}`);
}

/** The bytes at `url` (a checksum listing, a manifest), retried as above. */
export async function fetchWithRetry(url: string, o: DownloadOptions = {}): Promise<Uint8Array> {
  return withRetries(url, o, async (res) => new Uint8Array(await res.arrayBuffer()));
}

/**
 * Streams `url` into the file `dest` (a release binary, an archive), retried as above; a try that
 * fails halfway leaves no partial file behind.
 */
export async function downloadFile(url: string, dest: string, o: DownloadOptions = {}): Promise<string> {
  return withRetries(url, o, async (res) => {
    try {
      if (!res.body) throw new Error('empty answer');
      await pipeline(Readable.fromWeb(res.body as WebReadableStream), createWriteStream(dest, { mode: 0o600 }));
    } catch (err) {
      await rm(dest, { force: true });
      throw err;
    }
    return dest;
  });
}

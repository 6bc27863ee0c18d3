/**
 * Release binaries the way the ecosystem installs them (helm/kind-action, setup-* actions): a
 * pinned version downloaded through devpkg's one retrying downloader (download.ts, which logs to
 * stderr or core.info, never stdout), checked against a sha256 before anything runs it, kept in
 * the tool cache (@actions/tool-cache's layout) and put first on PATH. The post step is then
 * handed the same absolute path.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { access, chmod, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { DevpkgError } from '../errors.js';
import { sha256File } from './checksum.js';
import { downloadFile, fetchWithRetry } from './download.js';
import { platformName } from './releases.js';

export { fetchWithRetry, isTransientStatus } from './download.js';

/** Where GitHub release downloads come from (tests: a local stand-in). */
export const GITHUB = 'https://github.com';

/**
 * Whether devpkg may install a missing tool (pinned, checked, into the tool cache: the runner's,
 * or devpkg's own under ~/.cache/devpkg) and from where. The action and the CLI install by
 * default; the CLI's --no-install refuses instead.
 */
export interface InstallPolicy {
  refuse?: boolean;
  /** Base of https://github.com/<owner>/<repo>/releases/download/... */
  github?: string;
}

/** The parts of @actions/tool-cache used here (injected in tests). */
export interface ToolCacheApi {
  find(tool: string, version: string, arch?: string): string;
  cacheFile(source: string, target: string, tool: string, version: string, arch?: string): Promise<string>;
}

export interface PinnedTool {
  /** The binary's name in the cache and on PATH, e.g. kind. */
  tool: string;
  /** A release version, v-prefixed (v0.33.0). */
  version: string;
  /** The release asset. */
  url: string;
  /** The expected sha256 (devpkg's pin, or the user's); otherwise sumsUrl must list the asset. */
  sha256?: string;
  /** Where that sha256 came from, for the refusal (e.g. `imgpkg-sha256 (CLI: --imgpkg-sha256)`). */
  sha256From?: string;
  /** A `sha256sum` listing published with the release (`<hex>  <name>`). */
  sumsUrl?: string;
  /** The asset's name in that listing. */
  sumsName?: string;
}

export interface InstallOptions {
  toolCache?: ToolCacheApi;
  /** Node's arch naming (x64, arm64); default process.arch. */
  arch?: string;
  fetch?: typeof fetch;
  /** Progress and retry notices (default: retries to stderr, never stdout). */
  log?: (m: string) => void;
  /** Put the cached folder first on process.env.PATH (default true). */
  addToPath?: boolean;
  /** The wait between download retries (tests pass a no-op). */
  sleep?: (ms: number) => Promise<void>;
}

/** The sha256 of `file` in a `sha256sum`-style listing (`<hex>  <name>` or `<hex> *<name>`); pure. */
export function checksumFor(listing: string, file: string): string | undefined {
  for (const line of listing.split('\n')) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(?:\.\/)?(\S+)\s*$/.exec(line.trim());
    if (m && (m[2] === file || m[2]!.endsWith(`/${file}`))) return m[1]!.toLowerCase();
  }
  return undefined;
}

/** `linux-amd64` for Node's platform and arch; throws for platforms releases are not built for (pure). */
export function releasePlatform(platform: string, arch: string): string {
  const name = platformName(platform, arch);
  if (!['linux-amd64', 'linux-arm64', 'darwin-amd64', 'darwin-arm64'].includes(name)) {
    throw new DevpkgError(`no release binaries for ${platform}/${arch}; install the tool yourself and put it on PATH`);
  }
  return name;
}

async function toolCacheModule(): Promise<ToolCacheApi> {
  // Outside a runner there is no tool cache: devpkg keeps its own under the user's cache folder.
  if (!process.env.RUNNER_TOOL_CACHE) {
    process.env.RUNNER_TOOL_CACHE = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'devpkg', 'tool-cache');
  }
  return (await import('@actions/tool-cache')) as unknown as ToolCacheApi;
}

/** The cached `tool` at `version` (v-prefixed or not) when devpkg or the runner installed it before; never downloads. */
export async function findCached(tool: string, version: string, o: { toolCache?: ToolCacheApi; arch?: string } = {}): Promise<string | undefined> {
  const v = version.replace(/^v/, '');
  const arch = o.arch ?? process.arch;
  if (o.toolCache) {
    const dir = o.toolCache.find(tool, v, arch);
    return dir ? join(dir, tool) : undefined;
  }
  // The tool cache's own layout (<cache>/<tool>/<version>/<arch> and its .complete marker), read
  // directly: @actions/tool-cache's find prints ::debug:: lines on stdout, which a CLI must not.
  await toolCacheModule();
  const dir = join(process.env.RUNNER_TOOL_CACHE!, tool, v, arch);
  try {
    await access(`${dir}.complete`);
    await access(join(dir, tool), constants.X_OK);
    return join(dir, tool);
  } catch {
    return undefined;
  }
}

/**
 * Runs `fn` with @actions/tool-cache's `::debug::` lines kept off stdout outside GitHub Actions:
 * there they are workflow commands; on a terminal they would mix into what the CLI prints
 * (`--json` included). Other output passes through.
 */
async function withoutDebugLines<T>(fn: () => Promise<T>): Promise<T> {
  if (process.env.GITHUB_ACTIONS === 'true') return fn();
  const write = process.stdout.write;
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) =>
    typeof chunk === 'string' && chunk.startsWith('::debug::') ? true : (write as (...a: unknown[]) => boolean).call(process.stdout, chunk, ...rest)) as typeof write;
  try {
    return await fn();
  } finally {
    process.stdout.write = write;
  }
}

/**
 * The absolute path of `t.tool` at `t.version`: from the tool cache when it is there, else
 * downloaded (retrying network errors and transient statuses), checked against `t.sha256` or the
 * release's own listing, and cached. A wrong sum deletes the download and throws.
 */
export async function installPinnedTool(t: PinnedTool, o: InstallOptions = {}): Promise<string> {
  const log = o.log ?? ((m: string) => void process.stderr.write(`${m}\n`));
  const tc = o.toolCache ?? (await toolCacheModule());
  const arch = o.arch ?? process.arch;
  const version = t.version.replace(/^v/, '');
  if (t.sha256 !== undefined && !/^[0-9a-f]{64}$/i.test(t.sha256)) throw new DevpkgError(`${t.tool} ${t.version}: pinned sha256 "${t.sha256}" is not 64 hex digits`);
  let dir = await withoutDebugLines(async () => tc.find(t.tool, version, arch));
  if (dir) {
    // A cached binary is held to the same sum as a download (a user's sha256 names one build).
    const actual = t.sha256 ? await sha256File(join(dir, t.tool)) : undefined;
    if (actual && actual !== t.sha256!.toLowerCase()) {
      throw new DevpkgError(
        `${t.tool} ${t.version} in the tool cache (${dir}) has sha256 ${actual}, expected ${t.sha256!.toLowerCase()}${t.sha256From ? ` (${t.sha256From})` : ''}; not using it (remove that folder to download it again)`,
      );
    }
    log(`${t.tool} ${t.version} from the tool cache (${dir})`);
  } else {
    let expected = t.sha256?.toLowerCase();
    if (!expected) {
      if (!t.sumsUrl) throw new DevpkgError(`${t.tool} ${t.version}: devpkg has no sha256 for ${t.url} and no checksum listing to read it from`);
      const listing = new TextDecoder().decode(await fetchWithRetry(t.sumsUrl, { fetch: o.fetch, sleep: o.sleep, log, what: `${t.tool} ${t.version} checksums` }));
      const asset = t.sumsName ?? t.url.slice(t.url.lastIndexOf('/') + 1);
      expected = checksumFor(listing, asset);
      if (!expected) throw new DevpkgError(`${t.tool} ${t.version}: ${t.sumsUrl} does not list ${asset}; not installing it`);
    }
    log(`downloading ${t.tool} ${t.version} from ${t.url}`);
    const file = await downloadFile(t.url, join(tmpdir(), `devpkg-${t.tool}-${randomUUID()}`), { fetch: o.fetch, sleep: o.sleep, log, what: `${t.tool} ${t.version}` });
    try {
      const actual = await sha256File(file);
      if (actual !== expected) {
        throw new DevpkgError(`${t.tool} ${t.version} from ${t.url} has sha256 ${actual}, expected ${expected}${t.sha256From ? ` (${t.sha256From})` : ''}; not installing it`);
      }
      await chmod(file, 0o755);
      dir = await withoutDebugLines(() => tc.cacheFile(file, t.tool, t.tool, version, arch));
    } finally {
      await rm(file, { force: true });
    }
    log(`${t.tool} ${t.version} checked (sha256 ${expected}) and cached in ${dir}`);
  }
  if (o.addToPath !== false) process.env.PATH = `${dir}${delimiter}${process.env.PATH ?? ''}`;
  return join(dir, t.tool);
}

/**
 * Installs a pinned release binary the way the ecosystem's setup actions do: from the runner's
 * tool cache when it is there, else downloaded with @actions/tool-cache (which retries 5xx, 408,
 * 429 and network errors three times and never retries other 4xx), checked against its pinned
 * sha256 (a mismatch removes the download and installs nothing), cached, and put on PATH.
 * Generic (one pinned URL + sha256 per tool, version and platform); ytt uses it (ensureYtt below).
 */
import { chmod, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { findOnPath, sha256File } from '../bundle/install.js';
import { DevpkgError, UsageError } from '../errors.js';

/** The parts of @actions/tool-cache used here (a stand-in may be injected). */
export interface ToolCacheApi {
  find(tool: string, version: string, arch?: string): string;
  downloadTool(url: string): Promise<string>;
  cacheFile(source: string, target: string, tool: string, version: string, arch?: string): Promise<string>;
}

export interface PinnedRelease {
  /** Tool name: the tool cache's key and the binary's name. */
  tool: string;
  /** Semver without the v (the tool cache's key). */
  version: string;
  url: string;
  sha256: string;
  arch: string;
}

export interface InstallOptions {
  toolCache?: ToolCacheApi;
  log?: (m: string) => void;
  /** Called with the folder that holds the binary (default: prepends it to process.env.PATH). */
  addPath?: (dir: string) => void;
}

/** Installs `r` (or finds it in the tool cache) and returns the binary's path. */
export async function installPinned(r: PinnedRelease, o: InstallOptions = {}): Promise<string> {
  if (!/^[0-9a-f]{64}$/.test(r.sha256)) throw new DevpkgError(`${r.tool} ${r.version}: pinned sha256 "${r.sha256}" is not 64 hex digits`);
  const tc = o.toolCache ?? ((await import('@actions/tool-cache')) as unknown as ToolCacheApi);
  const log = o.log ?? (() => undefined);
  let dir = tc.find(r.tool, r.version, r.arch);
  if (dir) log(`${r.tool} ${r.version}: from the tool cache (${dir})`);
  else {
    log(`downloading ${r.tool} ${r.version} from ${r.url}`);
    let file: string;
    try {
      file = await tc.downloadTool(r.url);
    } catch (err) {
      const status = (err as { httpStatusCode?: number }).httpStatusCode;
      throw new DevpkgError(`could not download ${r.tool} ${r.version} from ${r.url}${status ? ` (HTTP ${status})` : ''}: ${(err as Error).message}`, { cause: err });
    }
    const actual = await sha256File(file);
    if (actual !== r.sha256) {
      await rm(file, { force: true });
      throw new DevpkgError(`${r.tool} ${r.version} from ${r.url} has sha256 ${actual}, expected ${r.sha256} (pinned in devpkg); not installing it`);
    }
    await chmod(file, 0o755);
    dir = await tc.cacheFile(file, r.tool, r.tool, r.version, r.arch);
  }
  (o.addPath ?? ((d: string) => (process.env.PATH = `${d}${delimiter}${process.env.PATH ?? ''}`)))(dir);
  return join(dir, r.tool);
}

/**
 * ytt release binaries devpkg may install: version -> platform -> sha256. Source: the
 * carvel-dev/homebrew ytt.rb formula that Carvel's release automation publishes (commit 03c4c1c,
 * ytt v0.44.3). ytt renders the providers for bootstrap's dry-run check.
 */
export const YTT_RELEASES: Record<string, Partial<Record<'linux-amd64' | 'linux-arm64' | 'darwin-amd64' | 'darwin-arm64', string>>> = {
  'v0.44.3': {
    'linux-amd64': 'c047bd7084beea2b4a585b13148d7c1084ee6c4aee8a68592fc8ed7d75ecebc5',
    'linux-arm64': '91d9ce5f2c9f8d11a127b1676d3a9fcb1982ec9b89084751c8bd335acffdb0c4',
    'darwin-amd64': 'fb9cc00c4b6285e04595c493df73da425a2d5f9a551630e52559dd9ee2d58252',
    'darwin-arm64': 'c8dbc767a7008c5097bfeefdfd2530bfc4a02bf10f5d0e522aed2e65baff5820',
  },
};
export const DEFAULT_YTT_VERSION = 'v0.44.3';

/** Pure: the pinned ytt release for a version and platform (node's process.platform / process.arch), or why there is none. */
export function yttRelease(version: string, platform: string, arch: string, base = 'https://github.com/carvel-dev/ytt/releases/download'): PinnedRelease {
  const v = version.startsWith('v') ? version : `v${version}`;
  const plat = `${platform}-${arch === 'x64' ? 'amd64' : arch}`;
  const sha256 = YTT_RELEASES[v]?.[plat as 'linux-amd64'];
  if (!sha256) {
    throw new UsageError(`devpkg has no pinned sha256 for ytt ${v} on ${plat} (pinned: ${Object.keys(YTT_RELEASES).join(', ')}); put ytt on PATH before devpkg (e.g. carvel-dev/setup-action)`);
  }
  return { tool: 'ytt', version: v.slice(1), url: `${base}/${v}/ytt-${plat}`, sha256, arch };
}

export interface EnsureYttOptions extends InstallOptions {
  env?: NodeJS.ProcessEnv;
  version?: string;
  platform?: string;
  arch?: string;
  /** Where the release lives (tests: a local server). */
  baseUrl?: string;
}

/**
 * The ytt binary: the one on PATH; else, on a GitHub runner, the pinned release installed through
 * the tool cache; else an error that says ytt is missing and why bootstrap needs it. Called before
 * anything is changed, so a missing ytt never weakens the dry-run check halfway through.
 */
export async function ensureYtt(o: EnsureYttOptions = {}): Promise<string> {
  const env = o.env ?? process.env;
  const onPath = await findOnPath('ytt', env);
  if (onPath) return onPath;
  if (env.GITHUB_ACTIONS !== 'true') {
    throw new UsageError(
      'ytt is not on PATH: bootstrap renders the package config and the providers with it for its dry-run check, and will not run that check weakened; ' +
        'install ytt (https://carvel.dev/ytt/docs/latest/install/, or go install carvel.dev/ytt/cmd/ytt@latest) and put it on PATH',
    );
  }
  return installPinned(yttRelease(o.version ?? DEFAULT_YTT_VERSION, o.platform ?? process.platform, o.arch ?? process.arch, o.baseUrl), o);
}

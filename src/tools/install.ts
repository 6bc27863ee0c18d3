/**
 * ytt for bootstrap's dry-run check: the one on PATH, or a pinned, sha256-checked release
 * installed the way the other tools are (toolcache.ts: @actions/tool-cache, the tool cache, PATH).
 * Refused (--no-install), a missing ytt is an error up front, never a weakened check.
 */
import { findOnPath } from './carvel.js';
import { UsageError } from '../errors.js';
import { GITHUB, installPinnedTool, type InstallOptions, type InstallPolicy, type PinnedTool } from './toolcache.js';

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
export function yttRelease(version: string, platform: string, arch: string, base = `${GITHUB}/carvel-dev/ytt/releases/download`): PinnedTool {
  const v = version.startsWith('v') ? version : `v${version}`;
  const plat = `${platform}-${arch === 'x64' ? 'amd64' : arch}`;
  const sha256 = YTT_RELEASES[v]?.[plat as 'linux-amd64'];
  if (!sha256) {
    throw new UsageError(`devpkg has no pinned sha256 for ytt ${v} on ${plat} (pinned: ${Object.keys(YTT_RELEASES).join(', ')}); put ytt on PATH before devpkg (e.g. carvel-dev/setup-action)`);
  }
  return { tool: 'ytt', version: v, url: `${base}/${v}/ytt-${plat}`, sha256 };
}

export interface EnsureYttOptions extends InstallOptions {
  env?: NodeJS.ProcessEnv;
  version?: string;
  platform?: string;
  arch?: string;
  /** May devpkg install it when missing, and from where (default: yes, from GitHub releases). */
  install?: InstallPolicy;
}

/**
 * The ytt binary: the one on PATH; else the pinned release installed through the tool cache;
 * refused (install.refuse), an error that says ytt is missing and why bootstrap needs it. Called
 * before anything is changed, so a missing ytt never weakens the dry-run check halfway through.
 */
export async function ensureYtt(o: EnsureYttOptions = {}): Promise<string> {
  const env = o.env ?? process.env;
  const onPath = await findOnPath('ytt', env);
  if (onPath) return onPath;
  if (o.install?.refuse) {
    throw new UsageError(
      'ytt is not on PATH (and --no-install: devpkg does not install it): bootstrap renders the package config and the providers with it for its dry-run check, and will not run that check weakened; ' +
        'install ytt (https://carvel.dev/ytt/docs/latest/install/, or go install carvel.dev/ytt/cmd/ytt@latest) and put it on PATH',
    );
  }
  const arch = o.arch ?? process.arch;
  const base = o.install?.github ? `${o.install.github}/carvel-dev/ytt/releases/download` : undefined;
  return installPinnedTool(yttRelease(o.version ?? DEFAULT_YTT_VERSION, o.platform ?? process.platform, arch, base), { ...o, arch });
}

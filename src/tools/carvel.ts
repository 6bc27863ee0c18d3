import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { DevpkgError } from '../errors.js';
import type { Need } from './needs.js';
import { checkPin, DEFAULT_TOOL_VERSIONS, PINNED_RELEASES, hostPlatform, pinNames, platformName, resolveRelease, type ToolPin } from './releases.js';
import { findCached, GITHUB, installPinnedTool, type InstallOptions, type InstallPolicy, type ToolCacheApi } from './toolcache.js';

/** The pinned imgpkg and kbld releases (releases.ts holds every tool's). */
export const CARVEL_RELEASES = { imgpkg: PINNED_RELEASES.imgpkg, kbld: PINNED_RELEASES.kbld };

export const DEFAULT_VERSIONS = { imgpkg: DEFAULT_TOOL_VERSIONS.imgpkg, kbld: DEFAULT_TOOL_VERSIONS.kbld } as const;

/** The Carvel tools devpkg installs as release binaries. */
export type CarvelTool = 'imgpkg' | 'kbld' | 'ytt';

/** The parts of @actions/tool-cache used here (injected in tests). */
export type ToolCache = ToolCacheApi;

export interface EnsureToolOptions extends Pick<InstallOptions, 'fetch' | 'sleep'> {
  /** The version and sha256 asked for (inputs imgpkg-version/imgpkg-sha256, ...); default the pinned release. */
  pin?: ToolPin;
  env?: NodeJS.ProcessEnv;
  platform?: string;
  arch?: string;
  log?: (m: string) => void;
  toolCache?: ToolCache;
  /** May devpkg install it when missing, and from where (default: yes, from GitHub releases). */
  install?: InstallPolicy;
}

export function releaseUrl(tool: CarvelTool, version: string, platform: string, github = GITHUB): string {
  return `${github}/carvel-dev/${tool}/releases/download/${version}/${tool}-${platform}`;
}

/** How to get a Carvel tool by hand (pure). */
export function carvelHowTo(tool: string): string {
  return `install it (https://carvel.dev/${tool}/docs/latest/install/, or go install carvel.dev/${tool}/cmd/${tool}@latest) and put it on PATH`;
}

export function normalizeVersion(v: string): string {
  const t = v.trim();
  return t.startsWith('v') ? t : `v${t}`;
}

/** Looks a program up on PATH (no shell, no `which`). */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      await access(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * Returns the path of imgpkg (kbld, ytt): the one on PATH (also what carvel-dev/setup-action
 * installs), else the release asked for (pinned by devpkg, or with the user's sha256) checked
 * against its sha256 and kept in the tool cache (the runner's, or devpkg's own); refused instead
 * when `install.refuse`. The cached folder is put first on PATH so a push command finds it too.
 */
export async function ensureCarvelTool(tool: CarvelTool, o: EnsureToolOptions = {}): Promise<string> {
  const env = o.env ?? process.env;
  const onPath = await findOnPath(tool, env);
  if (onPath) return onPath;
  const arch = o.arch ?? process.arch;
  // --no-install refuses a download; a release devpkg cached before is still used (and checked).
  if (o.install?.refuse && !(await findCached(tool, o.pin?.version ?? DEFAULT_TOOL_VERSIONS[tool], { toolCache: o.toolCache, arch }))) {
    throw new DevpkgError(`${tool} is not on PATH (and --no-install: devpkg does not install it); ${carvelHowTo(tool)}`, { exitCode: 2 });
  }
  const platform = platformName(o.platform ?? process.platform, arch);
  const { version, sha256 } = resolveRelease(tool, o.pin, platform);
  const given = pinNames(tool, 'sha256');
  return installPinnedTool(
    { tool, version, url: releaseUrl(tool, version, platform, o.install?.github), sha256, ...(o.pin?.sha256 ? { sha256From: o.pin.sha256From ?? `${given.input}, CLI: ${given.flag}` } : {}) },
    { toolCache: o.toolCache, arch, log: o.log, fetch: o.fetch, sleep: o.sleep, addToPath: o.env === undefined || o.env === process.env },
  );
}

/**
 * imgpkg (or kbld) as a need of a mode's preflight: on PATH or in the tool cache; installed when
 * missing. The release is resolved now, so a version without a sha256 is refused before anything
 * else is asked or installed.
 */
export function carvelNeed(tool: CarvelTool, o: { pin?: ToolPin; install?: InstallPolicy; log?: (m: string) => void } = {}): Need {
  checkPin(tool, o.pin, hostPlatform());
  const version = o.pin?.version ?? DEFAULT_TOOL_VERSIONS[tool];
  return {
    what: tool,
    missing: async () => ((await findOnPath(tool)) || (await findCached(tool, version)) ? undefined : 'not on PATH'),
    install: async () => void (await ensureCarvelTool(tool, { pin: o.pin, install: o.install, log: o.log })),
    howTo: carvelHowTo(tool),
  };
}

/** imgpkg as a need of a mode's preflight (carvelNeed). */
export function imgpkgNeed(o: { pin?: ToolPin; install?: InstallPolicy; log?: (m: string) => void } = {}): Need {
  return carvelNeed('imgpkg', o);
}

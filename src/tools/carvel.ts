import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { DevpkgError, UsageError } from '../errors.js';
import type { Need } from './needs.js';
import { findCached, GITHUB, installPinnedTool, type InstallPolicy, type ToolCacheApi } from './toolcache.js';

/**
 * sha256 of the release binaries devpkg may install, per tool, version and platform.
 * Source: the carvel-dev/homebrew formulas that Carvel's release automation publishes
 * (imgpkg.rb / kbld.rb). v0.41.1 / kbld v0.42.0 were read from a snapshot of
 * github.com/carvel-dev/homebrew (commit 58e9f7e, 2024-03-21); imgpkg v0.48.2 from a later
 * copy of the same formula. A checksum mismatch stops the install; it never installs anyway.
 */
export const CARVEL_RELEASES: Record<'imgpkg' | 'kbld', Record<string, Partial<Record<'linux-amd64' | 'linux-arm64', string>>>> = {
  imgpkg: {
    'v0.41.1': {
      'linux-amd64': 'e6291309be274d8137116bba06824af763e22110d48e9cc45aca0d3135420966',
      'linux-arm64': '1fc1c933cc235ef13dedf701075b36fea9c5da425783bec18452ccfb5332cac9',
    },
    'v0.48.2': {
      'linux-amd64': '1974667592fc9100848c2ab9871fb1d61b06ac5ced1a1dd9772d9fa3a5a8c8c7',
      'linux-arm64': '3172f46b42f6f67c962583fb81987d7143aa37a6d0364123e9a0bad43373cbda',
    },
  },
  kbld: {
    'v0.42.0': {
      'linux-amd64': 'c5eb701a9682e73a8caa636a735bd2a587343bcbdf6c2eaabb5d99b9c57cab7e',
      'linux-arm64': '6d8bb0e87fd88d0df2357519ba680c61cf9560b30c199d0a2d60873644ec42f1',
    },
  },
};

export const DEFAULT_VERSIONS = { imgpkg: 'v0.41.1', kbld: 'v0.42.0' } as const;

/** The parts of @actions/tool-cache used here (injected in tests). */
export type ToolCache = ToolCacheApi;

export interface EnsureToolOptions {
  /** imgpkg-version input; default DEFAULT_VERSIONS[tool]. */
  version?: string;
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  arch?: string;
  log?: (m: string) => void;
  toolCache?: ToolCache;
  /** May devpkg install it when missing, and from where (default: yes, from GitHub releases). */
  install?: InstallPolicy;
}

export function releaseUrl(tool: 'imgpkg' | 'kbld', version: string, platform: string, github = GITHUB): string {
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
 * Returns the path of imgpkg (or kbld): the one on PATH (also what carvel-dev/setup-action
 * installs), else a pinned release checked against its sha256 and kept in the tool cache (the
 * runner's, or devpkg's own); refused instead when `install.refuse`. The cached folder is put
 * first on PATH so a push command finds it too.
 */
export async function ensureCarvelTool(tool: 'imgpkg' | 'kbld', o: EnsureToolOptions = {}): Promise<string> {
  const env = o.env ?? process.env;
  const log = o.log ?? (() => undefined);
  const onPath = await findOnPath(tool, env);
  if (onPath) return onPath;
  if (o.install?.refuse) {
    throw new DevpkgError(`${tool} is not on PATH (and --no-install: devpkg does not install it); ${carvelHowTo(tool)}`);
  }
  const version = normalizeVersion(o.version || DEFAULT_VERSIONS[tool]);
  const arch = o.arch ?? process.arch;
  const platform = `${o.platform ?? process.platform}-${arch === 'x64' ? 'amd64' : arch}`;
  const known = CARVEL_RELEASES[tool][version];
  const expected = known?.[platform as 'linux-amd64'];
  if (!expected) {
    throw new UsageError(
      `devpkg has no pinned checksum for ${tool} ${version} on ${platform} (pinned: ${Object.keys(CARVEL_RELEASES[tool]).join(', ')}); ` +
        `install it before devpkg with carvel-dev/setup-action (then it is on PATH), or choose a pinned version`,
    );
  }
  // The pinned checksum is the one installPinnedTool checks the download against.
  return installPinnedTool(
    { tool, version, url: releaseUrl(tool, version, platform, o.install?.github), sha256: expected },
    { toolCache: o.toolCache, arch, log, addToPath: o.env === undefined || o.env === process.env },
  );
}

/** imgpkg as a need of a mode's preflight: on PATH or in the tool cache; installed (pinned) when missing. */
export function imgpkgNeed(o: { version?: string; install?: InstallPolicy; log?: (m: string) => void } = {}): Need {
  const version = normalizeVersion(o.version || DEFAULT_VERSIONS.imgpkg);
  return {
    what: 'imgpkg',
    missing: async () => ((await findOnPath('imgpkg')) || (await findCached('imgpkg', version)) ? undefined : 'not on PATH'),
    install: async () => void (await ensureCarvelTool('imgpkg', { version, install: o.install, log: o.log })),
    howTo: carvelHowTo('imgpkg'),
  };
}

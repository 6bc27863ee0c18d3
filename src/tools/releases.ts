/**
 * The release binaries devpkg may install (imgpkg, kbld, ytt, kind), which version of each, and
 * the sha256 each download is checked against: devpkg's pinned default, or any version the user
 * names with its sha256 (`imgpkg-version: v0.45.0` + `imgpkg-sha256: ...`). Pure but for
 * withChecksumsFile, which reads the checksums file the CLI and the action name: the installers
 * (carvel.ts, install.ts, cluster/kind.ts) take what this decides.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';

export const INSTALLABLE = ['imgpkg', 'kbld', 'ytt', 'kind'] as const;
export type Installable = (typeof INSTALLABLE)[number];

type Platform = 'linux-amd64' | 'linux-arm64' | 'darwin-amd64' | 'darwin-arm64';

/**
 * sha256 of the release binaries devpkg pins, per tool, version and platform. Source: the
 * carvel-dev/homebrew formulas that Carvel's release automation publishes (imgpkg.rb, kbld.rb,
 * ytt.rb): imgpkg v0.41.1 / kbld v0.42.0 from commit 58e9f7e (2024-03-21), imgpkg v0.48.2 from a
 * later copy of the same formula, ytt v0.44.3 from commit 03c4c1c. kind pins none: every kind
 * release publishes a .sha256sum beside each binary, which devpkg reads.
 */
export const PINNED_RELEASES: Record<Installable, Record<string, Partial<Record<Platform, string>>>> = {
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
  ytt: {
    'v0.44.3': {
      'linux-amd64': 'c047bd7084beea2b4a585b13148d7c1084ee6c4aee8a68592fc8ed7d75ecebc5',
      'linux-arm64': '91d9ce5f2c9f8d11a127b1676d3a9fcb1982ec9b89084751c8bd335acffdb0c4',
      'darwin-amd64': 'fb9cc00c4b6285e04595c493df73da425a2d5f9a551630e52559dd9ee2d58252',
      'darwin-arm64': 'c8dbc767a7008c5097bfeefdfd2530bfc4a02bf10f5d0e522aed2e65baff5820',
    },
  },
  kind: {},
};

/** The version each tool gets when none is asked for. */
export const DEFAULT_TOOL_VERSIONS: Record<Installable, string> = { imgpkg: 'v0.41.1', kbld: 'v0.42.0', ytt: 'v0.44.3', kind: 'v0.33.0' };

/** Which version of a tool to install, and the sha256 of its binary when the user gave one. */
export interface ToolPin {
  version?: string;
  sha256?: string;
  /** Where that sha256 came from when not from `<tool>-sha256` (a tool-checksums file). */
  sha256From?: string;
}

/** A pin per tool (absent: the default). */
export type ToolPins = Partial<Record<Installable, ToolPin>>;

/** The input and the flag that choose a tool's version / sha256, for messages (pure). */
export function pinNames(tool: Installable, what: 'version' | 'sha256'): { input: string; flag: string } {
  return { input: `${tool}-${what}`, flag: `--${tool}-${what}` };
}

/** `0.45.0` / `v0.45.0` -> `v0.45.0`; a usage error naming `name` for anything else (pure). */
export function normalizeToolVersion(v: string, name: string, example = 'v0.45.0'): string {
  const t = v.trim();
  if (!/^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(t)) throw new UsageError(`${name}: "${v}" is not a release version such as ${example}`);
  return t.startsWith('v') ? t : `v${t}`;
}

/**
 * A tool's version and sha256 as given (by inputs or flags, `names` says which), checked at the
 * edge: the version a release version, the sha256 64 hex digits and only with a version (it is
 * the sum of that release's binary). Empty strings mean not given (pure).
 */
export function parseToolPin(
  tool: Installable,
  version: string | undefined,
  sha256: string | undefined,
  names: 'input' | 'flag' | ((input: string) => string),
): ToolPin {
  const name = (what: 'version' | 'sha256') => {
    const n = pinNames(tool, what);
    if (names === 'flag') return n.flag;
    return names === 'input' ? `input ${n.input}` : names(n.input);
  };
  const v = version?.trim() ? normalizeToolVersion(version, name('version'), DEFAULT_TOOL_VERSIONS[tool]) : undefined;
  const sum = sha256?.trim().toLowerCase() || undefined;
  if (sum && !/^[0-9a-f]{64}$/.test(sum)) {
    throw new UsageError(`${name('sha256')}: "${sha256}" is not a sha256 (64 hex digits), e.g. the output of sha256sum ${tool}-linux-amd64`);
  }
  if (sum && !v) {
    throw new UsageError(`${name('sha256')} needs ${name('version')}: the sha256 is that of the release binary of the version you name`);
  }
  return { ...(v ? { version: v } : {}), ...(sum ? { sha256: sum } : {}) };
}

/** `linux-amd64` for Node's platform and arch (x64 -> amd64) (pure). */
export function platformName(platform: string, arch: string): string {
  return `${platform}-${arch === 'x64' ? 'amd64' : arch}`;
}

/** This machine's platform, as release binaries name it. */
export function hostPlatform(): string {
  return platformName(process.platform, process.arch);
}

/** What to download and check: the version, and the sha256 (undefined: read the release's own listing, kind only). */
export interface ResolvedRelease {
  version: string;
  sha256?: string;
}

/**
 * The version to install and the sha256 to check it against: the user's sha256 when given, else
 * devpkg's pinned one, else (kind) the release's own .sha256sum; for any other tool a usage
 * error that names the inputs and flags that give one (pure).
 */
export function resolveRelease(tool: Installable, pin: ToolPin | undefined, platform: string): ResolvedRelease {
  const version = pin?.version ?? DEFAULT_TOOL_VERSIONS[tool];
  if (pin?.sha256) return { version, sha256: pin.sha256 };
  const pinned = PINNED_RELEASES[tool][version]?.[platform as Platform];
  if (pinned) return { version, sha256: pinned };
  if (tool === 'kind') return { version };
  const v = pinNames(tool, 'version');
  const s = pinNames(tool, 'sha256');
  const known = Object.entries(PINNED_RELEASES[tool])
    .filter(([, sums]) => sums[platform as Platform])
    .map(([ver]) => ver);
  throw new UsageError(
    `devpkg pins no sha256 for ${tool} ${version} on ${platform} (pinned: ${known.join(', ') || 'none for this platform'}); ` +
      `give the sha256 of its ${tool}-${platform} with ${s.input} (CLI: ${s.flag}) or in a tool-checksums file (CLI: --tool-checksums) next to ${v.input} (CLI: ${v.flag}), ` +
      `choose a pinned version, or put ${tool} on PATH before devpkg (e.g. carvel-dev/setup-action)`,
  );
}

/**
 * Refuses, before any work, a version the user named that devpkg cannot check (no pin for this
 * platform, no sha256 given). The default version is resolved only when it must be installed:
 * where devpkg pins no binary for the platform, the tool on PATH still serves (pure).
 */
export function checkPin(tool: Installable, pin: ToolPin | undefined, platform: string): void {
  if (pin?.version) resolveRelease(tool, pin, platform);
}

/**
 * Fills in, from a checksums file (`<sha256>  <file>` a line, as sha256sum and Carvel's
 * checksums.txt write them), the sha256 of each tool whose version is named and whose sha256 is
 * not: the line naming its binary for this platform (`imgpkg-linux-amd64`). A sha256 given on its
 * own wins (pure).
 */
export function withChecksums(pins: ToolPins, listing: string, source: string, platform: string): ToolPins {
  const sums = new Map<string, string>();
  for (const line of listing.split('\n')) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(?:\.\/)?(\S+)\s*$/.exec(line.trim());
    if (m) sums.set(m[2]!.slice(m[2]!.lastIndexOf('/') + 1), m[1]!.toLowerCase());
  }
  const out: ToolPins = { ...pins };
  for (const tool of INSTALLABLE) {
    const pin = pins[tool];
    const sum = sums.get(`${tool}-${platform}`);
    if (pin?.version && !pin.sha256 && sum) out[tool] = { ...pin, sha256: sum, sha256From: `tool-checksums ${source}` };
  }
  return out;
}

/**
 * withChecksums over a checksums file read from disk (--tool-checksums, input tool-checksums):
 * a file that cannot be read is a usage error naming `what`.
 */
export async function withChecksumsFile(pins: ToolPins, file: string, what: string): Promise<ToolPins> {
  const listing = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`${what}: cannot read ${file}: ${err.code ?? err.message}; give a file of "<sha256>  <file>" lines`);
  });
  return withChecksums(pins, listing, file, hostPlatform());
}

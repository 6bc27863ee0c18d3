/**
 * ytt for bootstrap's dry-run check: the one on PATH, or a release (pinned, or the version the
 * user names with its sha256: ytt-version / ytt-sha256) installed the way the other Carvel tools
 * are (carvel.ts, toolcache.ts). Refused (--no-install), a missing ytt is an error up front,
 * never a weakened check.
 */
import { UsageError } from '../errors.js';
import { ensureCarvelTool, findOnPath, releaseUrl, type EnsureToolOptions } from './carvel.js';
import { platformName, resolveRelease, type ToolPin } from './releases.js';
import type { PinnedTool } from './toolcache.js';

/** Pure: the ytt release for a pin and platform (node's process.platform / process.arch), or the usage error saying how to give its sha256. */
export function yttRelease(pin: ToolPin | undefined, platform: string, arch: string, github?: string): PinnedTool {
  const plat = platformName(platform, arch);
  const { version, sha256 } = resolveRelease('ytt', pin, plat);
  return { tool: 'ytt', version, url: releaseUrl('ytt', version, plat, github), sha256 };
}

export type EnsureYttOptions = EnsureToolOptions;

/**
 * The ytt binary: the one on PATH; else the release installed through the tool cache; refused
 * (install.refuse), an error that says ytt is missing and why bootstrap needs it. Called before
 * anything is changed, so a missing ytt never weakens the dry-run check halfway through.
 */
export async function ensureYtt(o: EnsureYttOptions = {}): Promise<string> {
  const onPath = await findOnPath('ytt', o.env ?? process.env);
  if (onPath) return onPath;
  if (o.install?.refuse) {
    throw new UsageError(
      'ytt is not on PATH (and --no-install: devpkg does not install it): bootstrap renders the package config and the providers with it for its dry-run check, and will not run that check weakened; ' +
        'install ytt (https://carvel.dev/ytt/docs/latest/install/, or go install carvel.dev/ytt/cmd/ytt@latest) and put it on PATH',
    );
  }
  return ensureCarvelTool('ytt', o);
}

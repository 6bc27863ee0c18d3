import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';

export interface TanzuPaths {
  /** The tanzu config folder, e.g. ~/.config/tanzu. */
  tanzuDir: string;
  /** <tanzuDir>/tkg/providers. */
  providersDir: string;
  /** HOME to give the tanzu CLI so that it reads tanzuDir (undefined: the caller's HOME). */
  home?: string;
}

/**
 * The tanzu CLI reads `$HOME/.config/tanzu/tkg/providers`; it has no flag for another folder. A
 * non-default `--tanzu-dir` therefore has to end in `.config/tanzu`, and the CLI runs with HOME
 * set to the folder above it.
 */
export function tanzuPaths(tanzuDir: string | undefined, env: NodeJS.ProcessEnv, cwd: string): TanzuPaths {
  const home = env.HOME || os.homedir();
  const defaultDir = path.join(home, '.config', 'tanzu');
  const dir = tanzuDir ? path.resolve(cwd, tanzuDir) : defaultDir;
  const providersDir = path.join(dir, 'tkg', 'providers');
  if (dir === defaultDir) return { tanzuDir: dir, providersDir };
  const suffix = `${path.sep}.config${path.sep}tanzu`;
  if (!dir.endsWith(suffix)) {
    throw new UsageError(
      `--tanzu-dir (input tanzu-dir) "${tanzuDir}" must end in .config/tanzu: the tanzu CLI reads $HOME/.config/tanzu, so devpkg runs it with HOME set to the folder above`,
    );
  }
  return { tanzuDir: dir, providersDir, home: dir.slice(0, -suffix.length) || path.sep };
}

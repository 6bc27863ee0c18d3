import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DevpkgError } from '../errors.js';
import { execTool, type ExecFn } from './exec.js';
import { imgpkgAuthEnv, scrubSecrets, type RegistryLogin } from './imgpkg.js';
import { askVersion, lastLines, VersionedTool } from './tool.js';

// ---- argv builders (pure; tested table-style) ----

export const kbldArgs = {
  version: (): string[] => ['version'],
  /**
   * Resolves every image in `<bundle>/config` to a digest and writes the imgpkg ImagesLock
   * that `imgpkg push -b` needs. The resolved YAML on stdout is not needed.
   */
  lockImages: (bundleDir: string): string[] => [
    '-f',
    join(bundleDir, 'config'),
    '--imgpkg-lock-output',
    join(bundleDir, '.imgpkg', 'images.yml'),
  ],
};

export function parseKbldVersion(text: string): string | undefined {
  return /kbld version (\S+)/.exec(text)?.[1];
}

/** The kbld CLI (only for `lock-images: true`). */
export class Kbld extends VersionedTool<string> {
  static async create(exec: ExecFn = execTool, path = 'kbld'): Promise<Kbld> {
    return new Kbld(path, await askVersion(exec, path, kbldArgs.version(), parseKbldVersion), exec);
  }

  /**
   * Refreshes `<bundle>/.imgpkg/images.yml`. kbld asks registries for digests, so it gets the
   * credentials through its own env keychain (KBLD_REGISTRY_*_N), scrubbed from any error.
   */
  async lockImages(bundleDir: string, login?: RegistryLogin): Promise<void> {
    const env = login ? kbldAuthEnv(login, process.env) : {};
    // kbld writes the lock file but does not create its folder.
    await mkdir(join(bundleDir, '.imgpkg'), { recursive: true });
    const r = await this.exec(this.path, kbldArgs.lockImages(bundleDir), { env, allowFail: true });
    if (r.code !== 0) {
      const detail = login ? scrubSecrets(r.stderr || r.stdout, [login.password], login) : r.stderr || r.stdout;
      throw new DevpkgError(
        `kbld could not lock the images of ${join(bundleDir, 'config')} (exit ${r.code}): ` +
          `${lastLines(detail, 10)}`,
      );
    }
  }
}

/** kbld's env keychain has the same shape as imgpkg's, under KBLD_REGISTRY_* (suffix required). */
export function kbldAuthEnv(login: RegistryLogin, existing: NodeJS.ProcessEnv): Record<string, string> {
  const asImgpkg: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(existing)) {
    if (k.startsWith('KBLD_REGISTRY_')) asImgpkg[`IMGPKG_REGISTRY_${k.slice('KBLD_REGISTRY_'.length)}`] = v;
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(imgpkgAuthEnv(login, asImgpkg))) env[`KBLD_REGISTRY_${k.slice('IMGPKG_REGISTRY_'.length)}`] = v;
  return env;
}

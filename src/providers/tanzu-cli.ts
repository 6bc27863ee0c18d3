/**
 * The tanzu CLI for bootstrap mode: a given path, the one on PATH, or a download (tanzu-cli-url)
 * checked against tanzu-cli-sha256 (never installed without a matching checksum). Archives
 * (.tar.gz/.tgz) are unpacked and the tanzu executable inside is used.
 */
import { chmod, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { findOnPath, sha256File } from '../bundle/install.js';
import { DevpkgError, UsageError } from '../errors.js';

export interface TanzuToolCache {
  downloadTool(url: string): Promise<string>;
  extractTar(file: string): Promise<string>;
}

export interface EnsureTanzuOptions {
  path?: string;
  url?: string;
  sha256?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  log?: (m: string) => void;
  toolCache?: TanzuToolCache;
}

/** Pure: the tanzu executable among an archive's files (tanzu, tanzu-cli-linux_amd64, ...). */
export function pickTanzuBinary(files: string[]): string | undefined {
  const named = files.filter((f) => /^tanzu(-cli)?([-_][a-z0-9_]+)*$/.test(path.basename(f)) && !/\.(sha256|txt|md|json|ya?ml)$/.test(f));
  return named.sort((a, b) => a.length - b.length)[0];
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(p)));
    else out.push(p);
  }
  return out;
}

export async function ensureTanzuCli(o: EnsureTanzuOptions): Promise<string> {
  const log = o.log ?? (() => undefined);
  if (o.path) {
    const p = path.resolve(o.cwd ?? process.cwd(), o.path);
    try {
      await stat(p);
    } catch {
      throw new UsageError(`tanzu-cli "${o.path}" does not exist`);
    }
    return p;
  }
  if (o.url) {
    const expected = (o.sha256 ?? '').trim().toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(expected)) throw new UsageError('tanzu-cli-url needs tanzu-cli-sha256 (64 hex digits): devpkg never runs an unchecked download');
    const tc = o.toolCache ?? ((await import('@actions/tool-cache')) as unknown as TanzuToolCache);
    log(`downloading the tanzu CLI from ${o.url}`);
    const file = await tc.downloadTool(o.url);
    const actual = await sha256File(file);
    if (actual !== expected) {
      await rm(file, { force: true });
      throw new DevpkgError(`${o.url} has sha256 ${actual}, expected ${expected} (tanzu-cli-sha256); not using it`);
    }
    let bin = file;
    if (/\.(tar\.gz|tgz)$/.test(new URL(o.url).pathname)) {
      const dir = await tc.extractTar(file);
      const found = pickTanzuBinary(await walk(dir));
      if (!found) throw new DevpkgError(`${o.url} holds no tanzu executable`);
      bin = found;
    }
    await chmod(bin, 0o755);
    return bin;
  }
  const onPath = await findOnPath('tanzu', o.env ?? process.env);
  if (onPath) return onPath;
  throw new UsageError('bootstrap mode needs the tanzu CLI: set input tanzu-cli (a path), or tanzu-cli-url with tanzu-cli-sha256 (the runner does not ship it)');
}

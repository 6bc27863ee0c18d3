/**
 * The tanzu CLI for bootstrap mode: a given path, the one on PATH, or a download (tanzu-cli-url)
 * checked against tanzu-cli-sha256 (never installed without a matching checksum). Archives
 * (.tar.gz/.tgz) are unpacked and the tanzu executable inside is used; a TCE release's bundled
 * plugins are installed the way its install.sh does (`tanzu plugin install all --local
 * <os>-<arch>-default`, then `tanzu init`; for tanzu-framework 0.11 releases, the plugins copied
 * into ~/.config/tanzu-plugins and `tanzu plugin install management-cluster`). Whatever the
 * source, a CLI that cannot run `management-cluster` is refused with the reason.
 */
import { chmod, cp, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findOnPath } from '../tools/carvel.js';
import { sha256File } from '../tools/checksum.js';
import { downloadFile } from '../tools/download.js';
import { DevpkgError, UsageError } from '../errors.js';
import { execTool, type ExecFn } from '../tools/exec.js';
import { Tanzu } from '../tools/tanzu.js';
import { listFiles } from './files.js';

/** The part of @actions/tool-cache used here (injected in tests); downloads go through download.ts. */
export interface TanzuToolCache {
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
  /** Injected for tests (the download's fetch). */
  fetch?: typeof fetch;
  /** HOME for the CLI (the tanzu config folder's; default the process's). */
  home?: string;
  exec?: ExecFn;
}

/** Pure: the bundled plugin folder among the folders next to a TCE release's tanzu (e.g. linux-amd64-default). */
export function pickPluginDir(dirs: string[]): string | undefined {
  return dirs.filter((d) => /(^|-)default($|-)/.test(d)).sort()[0];
}

/**
 * Installs the plugins a TCE release bundles next to its tanzu binary, as its install.sh does,
 * then `tanzu init`. Returns what was done, for the log.
 */
export async function installBundledPlugins(tanzu: Tanzu, pluginDir: string, home: string): Promise<string> {
  if (await tanzu.tryInstallAllLocal(pluginDir)) {
    const init = await tanzu.tryInit();
    return `installed the bundled plugins (tanzu plugin install all --local ${pluginDir})${init ? ', tanzu init' : '; tanzu init failed (continuing: the management-cluster check below decides)'}`;
  }
  // tanzu-framework 0.11 (TCE 0.11): no `install all --local`; the plugins are copied where the CLI looks.
  const target = path.join(home, '.config', 'tanzu-plugins');
  await mkdir(target, { recursive: true });
  await cp(pluginDir, target, { recursive: true });
  const ok = await tanzu.tryInstallPlugin('management-cluster');
  await tanzu.tryInit();
  return `copied the bundled plugins to ${target}${ok ? ' and installed management-cluster' : '; tanzu plugin install management-cluster failed'}`;
}

export async function requireManagementCluster(tanzu: Tanzu, where: string): Promise<void> {
  const missing = await tanzu.managementClusterMissing();
  if (missing) {
    throw new DevpkgError(
      `the tanzu CLI ${where} cannot run management-cluster (${missing}): bootstrap mode needs the management-cluster plugin. ` +
        'A TCE release archive (tanzu-cli-url) brings it and devpkg installs its bundled plugins; for another tanzu CLI, install the plugin first (tanzu plugin install management-cluster)',
    );
  }
}

/** Pure: the tanzu executable among an archive's files (tanzu, tanzu-cli-linux_amd64, ...). */
export function pickTanzuBinary(files: string[]): string | undefined {
  const named = files.filter((f) => /^tanzu(-cli)?([-_][a-z0-9_]+)*$/.test(path.basename(f)) && !/\.(sha256|txt|md|json|ya?ml)$/.test(f));
  return named.sort((a, b) => a.length - b.length)[0];
}

export async function ensureTanzuCli(o: EnsureTanzuOptions): Promise<string> {
  const bin = await findTanzuCli(o);
  const tanzu = new Tanzu(bin, o.exec ?? execTool, o.home ? { HOME: o.home } : {});
  if (o.url && /\.(tar\.gz|tgz)$/.test(new URL(o.url).pathname)) {
    const folder = path.dirname(bin);
    const entries = await readdir(folder, { withFileTypes: true });
    const plugins = pickPluginDir(entries.filter((e) => e.isDirectory()).map((e) => e.name));
    if (plugins) (o.log ?? (() => undefined))(await installBundledPlugins(tanzu, path.join(folder, plugins), o.home ?? o.env?.HOME ?? os.homedir()));
  }
  await requireManagementCluster(tanzu, bin);
  return bin;
}

async function findTanzuCli(o: EnsureTanzuOptions): Promise<string> {
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
    log(`downloading the tanzu CLI from ${o.url}`);
    const parent = o.env?.RUNNER_TEMP || os.tmpdir();
    await mkdir(parent, { recursive: true });
    const folder = await mkdtemp(path.join(parent, 'devpkg-tanzu-cli-'));
    const file = await downloadFile(o.url, path.join(folder, path.basename(new URL(o.url).pathname) || 'tanzu'), { fetch: o.fetch, log: o.log, what: 'the tanzu CLI (tanzu-cli-url)' }).catch(async (err: unknown) => {
      // Nothing is left of a download that failed.
      await rm(folder, { recursive: true, force: true });
      throw err;
    });
    const actual = await sha256File(file);
    if (actual !== expected) {
      await rm(folder, { recursive: true, force: true });
      throw new DevpkgError(`${o.url} has sha256 ${actual}, expected ${expected} (tanzu-cli-sha256); not using it`);
    }
    let bin = file;
    if (/\.(tar\.gz|tgz)$/.test(new URL(o.url).pathname)) {
      const tc = o.toolCache ?? ((await import('@actions/tool-cache')) as unknown as TanzuToolCache);
      const dir = await tc.extractTar(file);
      const found = pickTanzuBinary((await listFiles(dir)).map((f) => path.join(dir, f)));
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

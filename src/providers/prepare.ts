/**
 * Prepares a tanzu providers folder for a dev Package: populate it when empty, back up every file
 * devpkg touches (recorded in the CleanupList before the first change), replace the vendored
 * copy of the package's bundle/config (phase 1), and write the 04_user_customizations file
 * (phases 2 and 3). Validation with a dry-run is separate (validateProviders).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { CleanupList } from '../cleanup-list.js';
import { DevpkgError } from '../errors.js';
import { USER_CUSTOMIZATIONS_DIR } from '../packages/overlay.js';
import type { Tanzu } from '../tools/tanzu.js';
import type { Ytt } from '../tools/ytt.js';
import { ProvidersBackup } from './backup.js';
import type { TanzuPaths } from './paths.js';
import { renderProviders } from './render.js';
import { checkDryRun, parseDocs, type Doc, type DryRunCheck } from './validate.js';
import { findVendoredLibrary, type VendoredLibrary } from './vendir.js';

export interface PrepareOptions {
  /** The tanzu CLI, to populate an empty providers folder (absent: no CLI at hand). */
  tanzu?: Tanzu;
  ytt: Ytt;
  paths: TanzuPaths;
  /** Cluster config file, used to populate an empty providers folder. */
  clusterConfig?: string;
  cleanup: CleanupList;
  /** Package name (e.g. antrea) and its addon category (e.g. cni). */
  pkgName: string;
  category: string;
  /** The edited version folder's bundle/config. */
  configDir: string;
  /** The version folder name, e.g. 1.5.3. */
  version: string;
  /** The 04_user_customizations file text (renderOverlay) and its file name. */
  overlay: string;
  overlayFile: string;
  /** Only replace the vendored library (no overlay) or the other way round; default both. */
  phase1?: boolean;
  log?: (m: string) => void;
  now?: () => Date;
}

export interface PrepareResult {
  providersDir: string;
  backupDir: string;
  populated: boolean;
  library?: VendoredLibrary;
  /** What replacing the vendored library changed. */
  libraryDiff?: { added: string[]; removed: string[]; changed: string[]; same: string[] };
  /** Phase 1 message: which vendored version was replaced by which edited one. */
  libraryNote?: string;
  overlayPath: string;
  /** Files written (absolute). */
  written: string[];
  /** The vendored and edited config rendered alone (for the dry-run check). */
  vendoredDocs: Doc[];
  editedDocs: Doc[];
}

async function isEmpty(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch {
    return true;
  }
}

export function backupDirName(now: Date): string {
  return `devpkg-providers-backup-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
}

async function renderAlone(ytt: Ytt, dir: string, log: (m: string) => void, what: string): Promise<Doc[]> {
  try {
    return parseDocs(await ytt.template({ files: [dir] }));
  } catch (err) {
    // A missing ytt is not a config that needs data values: never weaken the check for it.
    if (/not found on PATH/.test((err as Error).message)) throw err;
    log(`(${what} does not render on its own, so the dry-run check looks only for its objects: ${(err as Error).message.split('\n')[0]})`);
    return [];
  }
}

export async function prepareProviders(o: PrepareOptions): Promise<PrepareResult> {
  const log = o.log ?? (() => undefined);
  const { providersDir } = o.paths;
  let populated = false;
  if (await isEmpty(providersDir)) {
    if (!o.tanzu) throw new DevpkgError(`${providersDir} is empty and there is no tanzu CLI to populate it; give --tanzu, or copy a providers folder there`);
    if (!o.clusterConfig) {
      throw new DevpkgError(`${providersDir} is empty; give --cluster-config (input cluster-config) so that devpkg can populate it with tanzu management-cluster create --dry-run`);
    }
    log(`${providersDir} is empty: populating it with tanzu management-cluster create --dry-run --file ${o.clusterConfig}`);
    await o.tanzu.dryRun(o.clusterConfig, false);
    if (await isEmpty(providersDir)) throw new DevpkgError(`tanzu management-cluster create --dry-run did not populate ${providersDir}; check the tanzu CLI and its config folder`);
    populated = true;
  }

  const backupDir = path.join(path.dirname(providersDir), backupDirName((o.now ?? (() => new Date()))()));
  o.cleanup.record({ kind: 'providers-backup', backupDir, providersDir });
  const backup = await ProvidersBackup.start(backupDir, providersDir);
  log(`backing up every file devpkg changes in ${providersDir} to ${backupDir}`);

  const written: string[] = [];
  let library: VendoredLibrary | undefined;
  let libraryDiff: PrepareResult['libraryDiff'];
  let libraryNote: string | undefined;
  let vendoredDocs: Doc[] = [];
  let editedDocs: Doc[] = [];
  if (o.phase1 !== false) {
    library = await findVendoredLibrary(providersDir, o.category, o.pkgName);
    vendoredDocs = await renderAlone(o.ytt, path.join(providersDir, library.dir), log, `the vendored ${library.dir}`);
    editedDocs = await renderAlone(o.ytt, o.configDir, log, `the edited ${o.configDir}`);
    libraryDiff = await backup.replaceDir(library.dir, o.configDir);
    const changes = libraryDiff.added.length + libraryDiff.removed.length + libraryDiff.changed.length;
    const which = library.version && library.version !== o.version ? `the vendored ${o.pkgName} ${library.version}` : `the vendored ${o.pkgName}${library.version ? ` ${library.version}` : ''}`;
    libraryNote =
      changes === 0
        ? `phase 1: ${library.dir} (library.get in ${library.libFile}:${library.line}) already equals the edited ${o.version} bundle/config`
        : `phase 1: replaced ${which} in ${library.dir} (library.get in ${library.libFile}:${library.line}) with the edited ${o.version} bundle/config: ` +
          `${libraryDiff.changed.length} changed, ${libraryDiff.added.length} added, ${libraryDiff.removed.length} removed` +
          (library.version && library.version !== o.version ? ` (the providers vendor ${library.version}; the folder keeps its name so that ${library.libFile} still finds it)` : '');
    log(libraryNote);
    written.push(path.join(providersDir, library.dir));
  }

  const overlayRel = path.join(path.relative('providers', USER_CUSTOMIZATIONS_DIR), o.overlayFile);
  await backup.writeFile(overlayRel, o.overlay);
  const overlayPath = path.join(providersDir, overlayRel);
  log(`phases 2 and 3: wrote ${overlayPath}`);
  written.push(overlayPath);
  return {
    providersDir,
    backupDir,
    populated,
    ...(library ? { library } : {}),
    ...(libraryDiff ? { libraryDiff } : {}),
    ...(libraryNote ? { libraryNote } : {}),
    overlayPath,
    written,
    vendoredDocs,
    editedDocs,
  };
}

/**
 * Where the dry-run check gets its render: `tanzu management-cluster create --dry-run` with
 * SUPPRESS_PROVIDERS_UPDATE, or, with no tanzu CLI at hand, ytt run the same way (render.ts).
 */
export type DryRun = { tanzu: Tanzu } | { ytt: Ytt; providersDir: string };

/** Renders with `dryRun`, then checkDryRun. */
export async function validateProviders(
  dryRun: DryRun,
  clusterConfig: string,
  expect: Parameters<typeof checkDryRun>[1],
): Promise<DryRunCheck & { rendered: string; renderedBy: string }> {
  let rendered: string;
  let renderedBy: string;
  if ('tanzu' in dryRun) {
    rendered = await dryRun.tanzu.dryRun(clusterConfig, true);
    renderedBy = 'tanzu management-cluster create --dry-run';
  } else {
    const r = await renderProviders({ ytt: dryRun.ytt, providersDir: dryRun.providersDir, clusterConfig });
    rendered = r.text;
    renderedBy = `ytt as tanzu management-cluster create --dry-run renders (${r.bom === 'render-only' ? "devpkg's render-only BOM: no bom folder next to the providers" : 'the tkg bom folder'})`;
  }
  return { ...checkDryRun(rendered, expect), rendered, renderedBy };
}

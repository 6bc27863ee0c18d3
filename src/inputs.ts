import { UsageError } from './errors.js';
import { parseDuration } from './commands/io.js';

export const MODES = ['plan', 'detect', 'kind', 'cluster', 'bootstrap', 'report'] as const;
export type Mode = (typeof MODES)[number];

/** Every action input, read once and validated (STYLE.md 1). */
export interface Inputs {
  mode: Mode;
  workingDirectory: string;
  packagesDir: string;
  packages: string[];
  all: boolean;
  baseRef: string;
  headRef: string;
  ignore: string[];
  registry: string;
  registryUsername: string;
  registryPassword: string;
  refName: string;
  packageInstall: string;
  kubeconfig: string;
  pushCommand: string;
  lockImages: boolean;
  settleMs: number;
  timeoutMs: number;
  assert: string;
  devVersion: string;
  githubToken: string;
  comment: boolean;
  commentHeader: string;
  kindVersion: string;
  kindNodeImage: string;
  kappControllerVersion: string;
  imgpkgVersion: string;
  tanzuCli: string;
  tanzuCliUrl: string;
  tanzuCliSha256: string;
  tanzuDir: string;
  clusterConfig: string;
  addonType: string;
  bootstrapTimeoutMs: number;
  artifactName: string;
  /** report mode: folder with results.json files gathered from other jobs. */
  resultsPath: string;
}

export type InputGetter = (name: string) => string;

function bool(get: InputGetter, name: string, dflt: boolean): boolean {
  const v = get(name).trim().toLowerCase();
  if (v === '') return dflt;
  if (['true', 'yes', '1', 'on'].includes(v)) return true;
  if (['false', 'no', '0', 'off'].includes(v)) return false;
  throw new UsageError(`input ${name}: "${get(name)}" is not a boolean; use true or false`);
}

function list(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter((s) => s !== '' && !s.startsWith('#'));
}

/** Pure: builds Inputs from a getter, so tests need no toolkit. */
export function parseInputs(get: InputGetter): Inputs {
  const s = (name: string, dflt = ''): string => get(name).trim() || dflt;
  const mode = s('mode', 'plan') as Mode;
  if (!MODES.includes(mode)) {
    throw new UsageError(`input mode: "${mode}" is not one of ${MODES.join(', ')}`);
  }
  const dur = (name: string, dflt: string): number => parseDuration(s(name, dflt), `input ${name}`);
  const packages = list(s('packages'));
  for (const p of packages) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(p)) {
      throw new UsageError(`input packages: "${p}" is not NAME/VERSION (e.g. antrea/1.5.3)`);
    }
  }
  const registry = s('registry');
  if (registry.includes('://')) {
    throw new UsageError(`input registry: "${registry}" must be HOST[:PORT][/PATH] without a scheme`);
  }
  return {
    mode,
    workingDirectory: s('working-directory', '.'),
    packagesDir: s('packages-dir', 'addons/packages').replace(/\/+$/, ''),
    packages,
    all: bool(get, 'all', false),
    baseRef: s('base-ref'),
    headRef: s('head-ref'),
    ignore: list(s('ignore', '**/*.md')),
    registry,
    registryUsername: s('registry-username'),
    registryPassword: get('registry-password'),
    refName: s('ref-name'),
    packageInstall: s('package-install'),
    kubeconfig: s('kubeconfig'),
    pushCommand: s('push-command'),
    lockImages: bool(get, 'lock-images', false),
    settleMs: dur('settle', '60s'),
    timeoutMs: dur('timeout', '10m'),
    assert: get('assert'),
    devVersion: s('dev-version'),
    githubToken: get('github-token').trim(),
    comment: bool(get, 'comment', true),
    commentHeader: s('comment-header', 'devpkg'),
    kindVersion: s('kind-version'),
    kindNodeImage: s('kind-node-image'),
    kappControllerVersion: s('kapp-controller-version'),
    imgpkgVersion: s('imgpkg-version'),
    tanzuCli: s('tanzu-cli'),
    tanzuCliUrl: s('tanzu-cli-url'),
    tanzuCliSha256: s('tanzu-cli-sha256'),
    tanzuDir: s('tanzu-dir'),
    clusterConfig: s('cluster-config'),
    addonType: s('addon-type'),
    bootstrapTimeoutMs: dur('bootstrap-timeout', '45m'),
    artifactName: s('artifact-name', 'devpkg-results'),
    resultsPath: s('results-path'),
  };
}

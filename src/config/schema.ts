/**
 * The settings a devpkg.yaml, DEVPKG_* variables, the action's inputs and the commands' flags
 * share: ONE table. A key is an action input's name (kebab-case) or, for the few marked
 * `input: false`, a command-line flag the action has no use for. src/config/schema.test.ts holds
 * it against action.yml's inputs (both ways, and action.yml holds no default of its own, so a
 * file value is never shadowed) and against every flag the commands' --help texts list.
 */

import { closest } from '../suggest.js';

export type ValueKind = 'string' | 'path' | 'boolean' | 'list' | 'yaml';

export interface SettingKey {
  kind: ValueKind;
  /** The default, as the input's text (the README's Inputs table shows it). */
  default?: string;
  /** The command-line flag it sets (default: the key itself); null: no command takes it. */
  flag?: string | null;
  /** The flag says the opposite (host-check: true is no --skip-host-check). */
  invert?: true;
  /** The environment variable (default: DEVPKG_ + the key in upper snake case). */
  env?: string;
  /** Why a devpkg.yaml may not hold it (then the message names what to use instead). */
  notInFile?: string;
  /** Not an action input: a command-line flag only. */
  input?: false;
  /**
   * Keys that choose one thing together (which packages; where kapp-controller comes from): one
   * of them given in a higher layer drops the whole group from the lower ones, so a file's
   * `all: true` does not fight a `--base` on the command line.
   */
  group?: string;
}

export const SETTINGS = {
  'working-directory': {
    kind: 'path',
    default: '.',
    flag: 'repo',
    notInFile: 'devpkg.yaml is found through it: give the input working-directory, --repo or DEVPKG_WORKING_DIRECTORY',
  },
  'packages-dir': { kind: 'string', default: 'addons/packages' },
  layout: { kind: 'string', default: 'auto' },
  'released-version': { kind: 'string' },
  packages: { kind: 'list', group: 'selection' },
  all: { kind: 'boolean', default: 'false', group: 'selection' },
  'base-ref': { kind: 'string', flag: 'base', group: 'selection' },
  'head-ref': { kind: 'string', flag: 'head' },
  ignore: { kind: 'list', default: '**/*.md' },
  registry: { kind: 'string' },
  'cluster-registry': { kind: 'string' },
  'registry-username': { kind: 'string' },
  'registry-password': {
    kind: 'string',
    flag: null,
    notInFile: 'a secret does not belong in a file in the repository: give the input registry-password (from a secret) or DEVPKG_REGISTRY_PASSWORD',
  },
  'ref-name': { kind: 'string' },
  'package-install': { kind: 'string' },
  kubeconfig: { kind: 'path' },
  'push-command': { kind: 'string' },
  'push-timeout': { kind: 'string', default: '10m' },
  'lock-images': { kind: 'boolean', default: 'false' },
  'dev-version': { kind: 'string' },
  settle: { kind: 'string', default: '60s' },
  timeout: { kind: 'string', default: '10m' },
  // The action's input holds the assertions; the commands' --assert names a file of them.
  assert: { kind: 'yaml', flag: null },
  'github-token': {
    kind: 'string',
    flag: null,
    notInFile: 'a secret does not belong in a file in the repository: give the input github-token (it defaults to the job\'s token)',
  },
  comment: { kind: 'boolean', default: 'true', flag: null },
  'comment-header': { kind: 'string', default: 'devpkg', flag: null },
  'artifact-name': { kind: 'string', default: 'devpkg-results', flag: null },
  'results-path': { kind: 'path', flag: null },
  'kind-version': { kind: 'string' },
  'kind-sha256': { kind: 'string' },
  'kind-node-image': { kind: 'string' },
  'kind-config': { kind: 'path' },
  // A machine's mirrors: the kind test harness exports these names.
  'registry-image': { kind: 'string', env: 'DEVPKG_KIND_REGISTRY_IMAGE' },
  'kapp-controller-version': { kind: 'string', group: 'kapp-controller' },
  'kapp-controller-manifest': { kind: 'path', env: 'DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST', group: 'kapp-controller' },
  'kapp-controller-sha256': { kind: 'string' },
  'imgpkg-version': { kind: 'string' },
  'imgpkg-sha256': { kind: 'string' },
  'kbld-version': { kind: 'string' },
  'kbld-sha256': { kind: 'string' },
  'ytt-version': { kind: 'string' },
  'ytt-sha256': { kind: 'string' },
  'tool-checksums': { kind: 'path' },
  // No command takes these (yet): a command that adds the flag sets `flag` here (schema.test.ts says so).
  'tanzu-cli': { kind: 'path', flag: 'tanzu' },
  'tanzu-cli-url': { kind: 'string', flag: null },
  'tanzu-cli-sha256': { kind: 'string', flag: null },
  'tanzu-dir': { kind: 'path' },
  'cluster-config': { kind: 'path' },
  'addon-type': { kind: 'string' },
  'bootstrap-timeout': { kind: 'string', default: '45m' },
  'host-check': { kind: 'boolean', default: 'true', flag: 'skip-host-check', invert: true },
  'tkg-custom-image-repository': { kind: 'string' },
  'tkg-custom-image-repository-skip-tls-verify': { kind: 'boolean', default: 'false' },
  'tkg-custom-image-repository-ca-certificate': { kind: 'string' },
  // Command-line flags the action does without.
  'results-dir': { kind: 'path', input: false },
  diagnostics: { kind: 'path', input: false },
  'plain-http': { kind: 'boolean', input: false },
  'no-install': { kind: 'boolean', input: false },
} satisfies Record<string, SettingKey>;

export type SettingName = keyof typeof SETTINGS;

/** Every key, in the table's order. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/**
 * Command-line flags that name one call's subject or output, not a setting a repository shares:
 * no key, so no file or variable sets them. A flag in no key and not here fails schema.test.ts.
 */
export const PER_CALL_FLAGS = [
  'help', 'config', 'json', 'range', 'keep', 'cleanup', 'prepare-only', 'explain',
  'package', 'image', 'version', 'bundle', 'from', 'derive-from', 'expect-version', 'lock-output',
  'versions', 'constraints', 'prereleases', 'prerelease-identifiers', 'namespace', 'name',
  'all-clusters', 'allow-tag', 'work-dir', 'assert', 'registry-password', 'out', 'build',
] as const;

export function setting(name: string): SettingKey | undefined {
  return Object.hasOwn(SETTINGS, name) ? (SETTINGS as Record<string, SettingKey>)[name] : undefined;
}

/** DEVPKG_PACKAGES_DIR for packages-dir (or the key's own `env`). */
export function envName(name: string): string {
  return setting(name)?.env ?? `DEVPKG_${name.toUpperCase().replace(/-/g, '_')}`;
}

/** The flag a key sets, or undefined when no command takes it. */
export function flagOf(name: string): string | undefined {
  const s = setting(name);
  if (!s || s.flag === null) return undefined;
  return s.flag ?? name;
}

/** The default text of a key ('' when it has none). */
export function defaultOf(name: string): string {
  return setting(name)?.default ?? '';
}

/** The key closest to a misspelt one (at most two edits away), for "did you mean". */
export function closestKey(name: string): string | undefined {
  return closest(name, SETTING_NAMES, 2);
}

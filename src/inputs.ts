import { UsageError } from './errors.js';
import { parseImageRepository, type ImageRepository } from './providers/image-repository.js';
import { parseDuration, parseList, parsePackageList, parsePushTimeout, parseRegistry, parseVersionFlag, parseWaits } from './flags.js';
import { checkImageReference, registryText, type Registry } from './bundle/reference.js';

import { MODES, type Mode } from './results.js';
import { parseLayoutChoice, type LayoutChoice } from './layouts/index.js';
import { defaultOf } from './config/schema.js';
import { parseToolPin, type ToolPins } from './tools/releases.js';

/**
 * Every action input, read once and validated here; nothing else reads inputs, so the rest of
 * devpkg takes this typed object and is tested without the Actions toolkit.
 */
export interface Inputs {
  mode: Mode;
  workingDirectory: string;
  packagesDir: string;
  /** How the repository is laid out (auto: each package recognised by its files). */
  layout: LayoutChoice;
  /** kctrl layout: the released version git does not hold (else the highest matching tag, else 0.0.0). */
  releasedVersion: string;
  packages: string[];
  all: boolean;
  baseRef: string;
  headRef: string;
  ignore: string[];
  /** Where dev bundles are pushed (parsed here, once); unset when the input is empty. */
  registry?: Registry;
  /** Where the cluster pulls from when not from `registry` (cluster mode). */
  clusterRegistry?: Registry;
  registryUsername: string;
  registryPassword: string;
  refName: string;
  packageInstall: string;
  kubeconfig: string;
  pushCommand: string;
  /** How long the push command may run (input push-timeout). */
  pushTimeoutMs: number;
  lockImages: boolean;
  settleMs: number;
  timeoutMs: number;
  assert: string;
  devVersion: string;
  githubToken: string;
  comment: boolean;
  commentHeader: string;
  kindNodeImage: string;
  /** kind mode: a kind config file merged with devpkg's local-registry settings. */
  kindConfig: string;
  /** kind mode: the local registry's image. */
  registryImage: string;
  kappControllerVersion: string;
  /** kind mode: a release manifest file or URL instead of downloading kapp-controller-version. */
  kappControllerManifest: string;
  kappControllerSha256: string;
  /**
   * Tool releases to install when missing (imgpkg, kbld, ytt, kind): a version (normalized,
   * v-prefixed) and, for one devpkg does not pin, its sha256; parsed once here.
   */
  tools: ToolPins;
  /** A checksums file (relative to working-directory) with the sha256 of the tool versions named (readToolPins). */
  toolChecksums: string;
  tanzuCli: string;
  tanzuCliUrl: string;
  tanzuCliSha256: string;
  tanzuDir: string;
  clusterConfig: string;
  addonType: string;
  bootstrapTimeoutMs: number;
  /** bootstrap mode: check the host (cgroup v1, CPUs, memory, docker) before anything else. */
  hostCheck: boolean;
  /** bootstrap mode: TKG_CUSTOM_IMAGE_REPOSITORY and its two companions (validated). */
  imageRepository?: ImageRepository;
  artifactName: string;
  /** report mode: folder with results.json files gathered from other jobs. */
  resultsPath: string;
}

/**
 * Where inputs come from: @actions/core in the action (INPUT_* variables, with the defaults
 * from action.yml), a stand-in in tests.
 */
export interface InputSource {
  getInput(name: string): string;
  getBooleanInput(name: string): boolean;
  getMultilineInput(name: string): string[];
  /** How a value is named in messages (default `input NAME`; src/config names a file's file:line). */
  what?(name: string): string;
}

/** A boolean input (YAML 1.2 core schema: true/True/TRUE, false/False/FALSE); empty means its default. */
function bool(src: InputSource, name: string): boolean {
  const v = src.getInput(name);
  if (v === '') return defaultOf(name) === 'true';
  try {
    return src.getBooleanInput(name);
  } catch {
    throw new UsageError(`${whatOf(src, name)}: "${v}" is not a boolean; use true or false`);
  }
}

const whatOf = (src: InputSource, name: string): string => src.what?.(name) ?? `input ${name}`;

/** A list input's text, its lines trimmed (parseList and parsePackageList split it as the CLI's flags); empty means its default. */
function listText(src: InputSource, name: string): string {
  return src.getInput(name) === '' ? defaultOf(name) : src.getMultilineInput(name).join('\n');
}

/** A list input: one item a line or comma-separated; `#` starts a comment line. */
function list(src: InputSource, name: string): string[] {
  return parseList(listText(src, name));
}

/** Builds Inputs from a source of inputs, so tests need no runner. */
export function parseInputs(src: InputSource): Inputs {
  const get = (name: string): string => src.getInput(name);
  // Defaults live in src/config/schema.ts (action.yml holds none, so a devpkg.yaml is not shadowed).
  const s = (name: string): string => get(name).trim() || defaultOf(name);
  const what = (name: string): string => whatOf(src, name);
  const both = (a: string, b: string): string =>
    what(a) === `input ${a}` && what(b) === `input ${b}` ? `inputs ${a} and ${b}` : `${what(a)} and ${what(b)}`;
  const mode = (get('mode').trim() || 'plan') as Mode;
  if (!MODES.includes(mode)) {
    throw new UsageError(`input mode: "${mode}" is not one of ${MODES.join(', ')}`);
  }
  const dur = (name: string): number => parseDuration(s(name), what(name));
  const packages = parsePackageList(listText(src, 'packages'), what('packages'));
  const registry = s('registry') ? parseRegistry(s('registry'), what('registry'), 'ghcr.io/my-org/dev') : undefined;
  const waits = parseWaits({ settle: s('settle'), timeout: s('timeout') }, { settle: what('settle'), timeout: what('timeout') });
  const devVersion = s('dev-version') && parseVersionFlag(s('dev-version'), what('dev-version'));
  const clusterRegistry = s('cluster-registry') ? parseRegistry(s('cluster-registry'), what('cluster-registry'), '172.18.0.3:5000') : undefined;
  if (mode === 'kind' && registry) {
    // Never push (or send credentials) to a host the kind mode did not create.
    throw new UsageError(
      `${what('registry')}: mode kind pushes to the local registry it creates on the kind network; remove registry ("${registryText(registry)}") ` +
        '(and registry-username/registry-password), or use mode: cluster to push to an external registry',
    );
  }
  for (const image of ['registry-image', 'kind-node-image']) if (s(image)) checkImageReference(s(image), what(image));
  const kcManifest = s('kapp-controller-manifest');
  if (kcManifest && s('kapp-controller-version')) {
    throw new UsageError(
      `${both('kapp-controller-manifest', 'kapp-controller-version')}: give one; the manifest replaces the download of a release version`,
    );
  }
  const pin = (tool: 'imgpkg' | 'kbld' | 'ytt' | 'kind') => parseToolPin(tool, s(`${tool}-version`), s(`${tool}-sha256`), what);
  const pins = { imgpkg: pin('imgpkg'), kbld: pin('kbld'), ytt: pin('ytt'), kind: pin('kind') };
  const kcSha = s('kapp-controller-sha256').toLowerCase();
  if (kcSha && !/^[0-9a-f]{64}$/.test(kcSha)) {
    throw new UsageError(`${what('kapp-controller-sha256')}: "${kcSha}" is not a sha256 (64 hex digits), e.g. the output of sha256sum release.yml`);
  }
  return {
    mode,
    workingDirectory: s('working-directory'),
    packagesDir: s('packages-dir').replace(/\/+$/, ''),
    layout: parseLayoutChoice(s('layout'), what('layout')),
    releasedVersion: s('released-version') ? parseVersionFlag(s('released-version'), what('released-version')) : '',
    packages,
    all: bool(src, 'all'),
    baseRef: s('base-ref'),
    headRef: s('head-ref'),
    ignore: list(src, 'ignore'),
    registry,
    clusterRegistry,
    registryUsername: s('registry-username'),
    registryPassword: get('registry-password'),
    refName: s('ref-name'),
    packageInstall: s('package-install'),
    kubeconfig: s('kubeconfig'),
    pushCommand: s('push-command'),
    pushTimeoutMs: parsePushTimeout(s('push-timeout'), what('push-timeout')),
    lockImages: bool(src, 'lock-images'),
    settleMs: waits.settleMs,
    timeoutMs: waits.timeoutMs,
    assert: get('assert'),
    devVersion,
    githubToken: get('github-token').trim(),
    comment: bool(src, 'comment'),
    commentHeader: s('comment-header'),
    kindNodeImage: s('kind-node-image'),
    kindConfig: s('kind-config'),
    registryImage: s('registry-image'),
    kappControllerVersion: s('kapp-controller-version'),
    kappControllerManifest: kcManifest,
    kappControllerSha256: kcSha,
    tools: pins,
    toolChecksums: s('tool-checksums'),
    tanzuCli: s('tanzu-cli'),
    tanzuCliUrl: s('tanzu-cli-url'),
    tanzuCliSha256: s('tanzu-cli-sha256'),
    tanzuDir: s('tanzu-dir'),
    clusterConfig: s('cluster-config'),
    addonType: s('addon-type'),
    bootstrapTimeoutMs: dur('bootstrap-timeout'),
    hostCheck: bool(src, 'host-check'),
    imageRepository: parseImageRepository(s('tkg-custom-image-repository'), bool(src, 'tkg-custom-image-repository-skip-tls-verify'), get('tkg-custom-image-repository-ca-certificate'), {
      repository: what('tkg-custom-image-repository'),
      skipTlsVerify: what('tkg-custom-image-repository-skip-tls-verify'),
      caCertificate: what('tkg-custom-image-repository-ca-certificate'),
    }),
    artifactName: s('artifact-name'),
    resultsPath: s('results-path'),
  };
}


import { join, resolve } from 'node:path';
import { checkBundleDir } from '../bundle/folder.js';
import { errorMessage, UsageError } from '../errors.js';
import { parseImageFlag, parsePushTimeout } from '../flags.js';
import { defaultOf } from '../config/schema.js';
import { checkPin, hostPlatform } from '../tools/releases.js';
import type { InstallPolicy } from '../tools/toolcache.js';
import { parseCommand, requireFlag, requireFolder, type CliIO } from './io.js';
import { booleans, IMGPKG_FLAGS, KBLD_FLAGS, PUSH_FLAGS, strings, toolPinsFlags } from './options.js';

const USAGE = `Usage: devpkg push --bundle DIR --image REPO:TAG [flags]

Pushes a bundle folder as an imgpkg bundle and prints its digest reference
(REPO@sha256:...) on stdout; progress goes to stderr.

Flags:
  --bundle DIR               the version folder's bundle/ directory (must hold .imgpkg/images.yml)
  --image REPO:TAG           where to push, e.g. localhost:5001/devpkg/antrea:1.2.3_dev.1
                             (OCI tags cannot hold "+"; write it as "_")
  --lock-output FILE         keep imgpkg's BundleLock here
  --registry-username USER   username for the registry; the password is read from the
                             environment variable DEVPKG_REGISTRY_PASSWORD (never a flag)
  --push-command CMD         run the repository's own push target instead of imgpkg, as
                             bash -c CMD at the repository root (git top level of the bundle),
                             with DEVPKG_REGISTRY, DEVPKG_PACKAGE, DEVPKG_VERSION,
                             DEVPKG_TAG, DEVPKG_IMAGE and DEVPKG_BUNDLE_DIR in its environment;
                             the digest is then read from the registry
  --push-timeout DURATION    stop the push command (and what it started) after this long (default 10m)
  --package NAME             package name for the push command's DEVPKG_PACKAGE
  --version VERSION          package version for the push command's DEVPKG_VERSION
  --lock-images              run kbld to refresh .imgpkg/images.yml before pushing
  --plain-http               use HTTP for a registry that is not on localhost/loopback/RFC1918/*.local
  --no-install               refuse instead of installing a missing imgpkg (or kbld) into ~/.cache/devpkg
  --imgpkg-version V         imgpkg release to install when none is on PATH (default v0.41.1;
                             pinned: v0.41.1, v0.48.2); another version needs --imgpkg-sha256
  --imgpkg-sha256 SUM        sha256 of that release's binary for this platform (imgpkg-linux-amd64, ...)
  --kbld-version V           kbld release for --lock-images (default v0.42.0, pinned); another needs --kbld-sha256
  --kbld-sha256 SUM          sha256 of that kbld release's binary for this platform
  --tool-checksums FILE      "<sha256>  <file>" lines (e.g. a release's checksums.txt) with the
                             sums of the versions given, instead of each --*-sha256
  -h, --help                 show this help

Every flag and the bundle folder are checked before anything is downloaded or pushed.
`;

/**
 * --bundle checked before any tool is fetched: a folder, holding what the push needs (imgpkg:
 * .imgpkg/images.yml; --lock-images: the config/ kbld reads; a push command: the folder only).
 */
async function checkBundleFlag(dir: string, o: { lockImages: boolean; pushCommand: boolean }): Promise<void> {
  await requireFolder(dir, '--bundle', 'bundle folder');
  if (o.lockImages) {
    await requireFolder(join(dir, 'config'), '--bundle', 'config/ folder that --lock-images reads with kbld');
    return;
  }
  if (o.pushCommand) return;
  try {
    await checkBundleDir(dir);
  } catch (err) {
    throw new UsageError(`--bundle: ${errorMessage(err)}`);
  }
}

export interface PushCommandDeps {
  /** Where missing tools come from (tests: a local release stand-in); --no-install sets refuse. */
  install?: InstallPolicy;
  /** The waits between download retries (tests: none). */
  sleep?: (ms: number) => Promise<void>;
}

export async function run(argv: string[], io: CliIO, deps: PushCommandDeps = {}): Promise<number> {
  const values = parseCommand(argv, io, USAGE, {
    // --registry-password is known only to be refused with the reason.
    ...strings('bundle', 'image', 'lock-output', 'registry-username', 'registry-password', 'package', 'version'),
    ...booleans('plain-http', 'no-install'),
    ...PUSH_FLAGS,
    ...IMGPKG_FLAGS,
    ...KBLD_FLAGS,
  });
  if (!values) return 0;
  if (values['registry-password'] !== undefined) {
    // Refused on purpose: a flag ends up in shell history and process listings.
    throw new UsageError('--registry-password is not accepted; put the password in the environment variable DEVPKG_REGISTRY_PASSWORD');
  }
  const bundle = requireFlag(values.bundle, '--bundle', 'push');
  const imageFlag = requireFlag(values.image, '--image', 'push');
  const username = values['registry-username'];
  const password = io.env.DEVPKG_REGISTRY_PASSWORD;
  if (username && !password) {
    throw new UsageError(`--registry-username ${username} needs the password in the environment variable DEVPKG_REGISTRY_PASSWORD`);
  }
  if (!username && password) {
    throw new UsageError('DEVPKG_REGISTRY_PASSWORD is set but --registry-username is not; give both or neither');
  }

  const { repository, tag } = parseImageFlag(imageFlag, '--image');
  const lockImages = values['lock-images'] === true;
  const pushTimeoutMs = parsePushTimeout(values['push-timeout'] ?? defaultOf('push-timeout'), '--push-timeout');
  const tools = await toolPinsFlags(values, ['imgpkg', 'kbld'], io);
  const platform = hostPlatform();
  if (!values['push-command']) checkPin('imgpkg', tools.imgpkg, platform);
  if (lockImages) checkPin('kbld', tools.kbld, platform);
  const bundleDir = resolve(io.cwd, bundle);
  await checkBundleFlag(bundleDir, { lockImages, pushCommand: !!values['push-command'] });
  // Only now may a tool be downloaded: every input above is good.
  const { pushBundle } = await import('../bundle/push.js');
  const log = (m: string) => io.stderr(`${m}\n`);
  const install: InstallPolicy = { ...deps.install, ...(values['no-install'] ? { refuse: true } : {}) };

  let imgpkg;
  if (!values['push-command']) {
    const { ensureCarvelTool } = await import('../tools/carvel.js');
    const { Imgpkg } = await import('../tools/imgpkg.js');
    imgpkg = await Imgpkg.create(undefined, await ensureCarvelTool('imgpkg', { pin: tools.imgpkg, install, env: io.env, log, sleep: deps.sleep }));
  }
  const result = await pushBundle({
    bundleDir,
    tools,
    install,
    repository,
    tag,
    credentials: username && password ? { username, password } : undefined,
    pushCommand: values['push-command'],
    timeoutMs: pushTimeoutMs,
    cwd: io.cwd,
    lockImages,
    env: { package: values.package, version: values.version },
    lockOutput: values['lock-output'] ? resolve(io.cwd, values['lock-output']) : undefined,
    plainHttp: values['plain-http'] ? true : undefined,
    imgpkg,
    log,
  });
  io.stdout(`${result.image}\n`);
  return 0;
}

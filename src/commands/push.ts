import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { parseImageFlag } from '../flags.js';
import { parseCommand, requireFlag, type CliIO } from './io.js';
import { booleans, PUSH_FLAGS, strings } from './options.js';

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
  --package NAME             package name for the push command's DEVPKG_PACKAGE
  --version VERSION          package version for the push command's DEVPKG_VERSION
  --lock-images              run kbld to refresh .imgpkg/images.yml before pushing
  --plain-http               use HTTP for a registry that is not on localhost/loopback/RFC1918/*.local
  -h, --help                 show this help
`;

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, {
    // --registry-password is known only to be refused with the reason.
    ...strings('bundle', 'image', 'lock-output', 'registry-username', 'registry-password', 'package', 'version'),
    ...booleans('plain-http'),
    ...PUSH_FLAGS,
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
  const { pushBundle } = await import('../bundle/push.js');
  const log = (m: string) => io.stderr(`${m}\n`);

  let imgpkg;
  if (!values['push-command']) {
    const { ensureCarvelTool } = await import('../tools/carvel.js');
    const { Imgpkg } = await import('../tools/imgpkg.js');
    imgpkg = await Imgpkg.create(undefined, await ensureCarvelTool('imgpkg', { env: io.env, log }));
  }
  const result = await pushBundle({
    bundleDir: resolve(io.cwd, bundle),
    repository,
    tag,
    credentials: username && password ? { username, password } : undefined,
    pushCommand: values['push-command'],
    cwd: io.cwd,
    lockImages: values['lock-images'] === true,
    env: { package: values.package, version: values.version },
    lockOutput: values['lock-output'] ? resolve(io.cwd, values['lock-output']) : undefined,
    plainHttp: values['plain-http'] ? true : undefined,
    imgpkg,
    log,
  });
  io.stdout(`${result.image}\n`);
  return 0;
}

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DevpkgError, errorMessage } from '../errors.js';
import { defaultOf } from '../config/schema.js';
import { formatDuration, parseDuration } from '../flags.js';
import { execTool, ExecTimeoutError, type ExecFn } from '../tools/exec.js';
import { Imgpkg, imgpkgAuthEnv, scrubSecrets, type RegistryLogin } from '../tools/imgpkg.js';
import { Kbld } from '../tools/kbld.js';
import { gitTopLevel } from '../tools/git.js';
import { lastLines } from '../tools/tool.js';
import { checkBundleDir, parseBundleLock } from './folder.js';
import { ensureCarvelTool } from '../tools/carvel.js';
import type { ToolPins } from '../tools/releases.js';
import type { InstallPolicy } from '../tools/toolcache.js';
import { formatRepository, usesPlainHttp, validateTag, type Repository } from './reference.js';
import { RegistryClient, type RegistryCredentials } from './registry.js';

export interface PushBundleOptions {
  /** The version folder's `bundle/` directory. */
  bundleDir: string;
  /** Where to push (no tag): a bundleRepository of the dev plan, or parseRepository of a flag. */
  repository: Repository;
  /** OCI tag (a dev version with `+` written as `_`). */
  tag: string;
  credentials?: RegistryCredentials;
  /**
   * The repository's own push target, run as `bash -c <pushCommand>` with DEVPKG_* variables in
   * its environment (see pushCommandEnv). The digest is then read from the registry.
   */
  pushCommand?: string;
  /**
   * A folder of the repository (the packages root). The push command runs at the repository's
   * root, the git top level of the bundle (else of this folder), in every mode, so a root
   * Makefile target or a script path relative to the root works; outside git, in this folder
   * (default: the current one).
   */
  cwd?: string;
  /**
   * How long the push command may run (input push-timeout); past it, it is stopped with every
   * process it started (its process group). Default PUSH_TIMEOUT_MS.
   */
  timeoutMs?: number;
  /** Aborted (SIGINT/SIGTERM to devpkg): the push command's process group is stopped. */
  signal?: AbortSignal;
  /** Run kbld to refresh `.imgpkg/images.yml` first. */
  lockImages?: boolean;
  /** Package name and version, for the push command's environment. */
  env?: { package?: string; version?: string };
  /** Keep the BundleLock here (otherwise it lives in a temporary folder that is removed). */
  lockOutput?: string;
  /** Force plain HTTP for a host go-containerregistry would reach over HTTPS. */
  plainHttp?: boolean;
  /** Default: the imgpkg on PATH, or on a GitHub runner a pinned, checksummed release (ensureCarvelTool). */
  imgpkg?: Imgpkg;
  /** The imgpkg / kbld releases to install when none is on PATH (imgpkg-version, imgpkg-sha256, ...). */
  tools?: ToolPins;
  /** May devpkg install a missing imgpkg / kbld (default yes; --no-install refuses). */
  install?: InstallPolicy;
  kbld?: Kbld;
  exec?: ExecFn;
  log?: (m: string) => void;
  /** Injected for tests. */
  fetch?: typeof fetch;
}

/** The push command's limits as pushBundle takes them: push-timeout and the run's abort signal, each set only when given. */
export function pushLimits(timeoutMs?: number, signal?: AbortSignal): Pick<PushBundleOptions, 'timeoutMs' | 'signal'> {
  return { ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(signal ? { signal } : {}) };
}

export interface PushBundleResult {
  /** `host/path@sha256:...`, what the Package references. */
  image: string;
  digest: string;
  tag: string;
  /** Set when lockOutput was given. */
  lockFile?: string;
}

/**
 * The environment of a push command. Values reach the command only as variables, never spliced
 * into its text; users write e.g. `make push-package OCI_REGISTRY="$DEVPKG_REGISTRY" ...`.
 */
export function pushCommandEnv(o: {
  repository: Repository;
  tag: string;
  bundleDir: string;
  package?: string;
  version?: string;
}): Record<string, string> {
  const repo = formatRepository(o.repository);
  return {
    DEVPKG_REGISTRY: repo,
    DEVPKG_PACKAGE: o.package ?? '',
    DEVPKG_VERSION: o.version ?? '',
    DEVPKG_TAG: o.tag,
    DEVPKG_IMAGE: `${repo}:${o.tag}`,
    DEVPKG_BUNDLE_DIR: o.bundleDir,
  };
}

/** The push command's limit when none is given: the push-timeout input's default (src/config/schema.ts). */
export const PUSH_TIMEOUT_MS = parseDuration(defaultOf('push-timeout'), 'push-timeout');

/**
 * Pure: the digests a push command's output gives for the bundle's repository: `REPO@sha256:...`
 * and `REPO:TAG@sha256:...` (what `imgpkg push` and crane print), in order, without repeats.
 * Digests of other repositories (a Makefile that also pushes images) are not the bundle's.
 */
export function printedDigests(output: string, repo: string): string[] {
  const esc = repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?<![\\w./-])${esc}(?::[\\w][\\w.-]*)?@(sha256:[0-9a-f]{64})(?![0-9a-f])`, 'g');
  return [...new Set([...output.matchAll(re)].map((m) => m[1]!))];
}

/** The argv of a push command: the user's own text, through the one shell devpkg ever starts. */
export function pushCommandArgs(command: string): [string, string[]] {
  return ['bash', ['-c', command]];
}

/**
 * Where a push command runs: the repository root (git top level) of the bundle, else of `cwd`
 * (a baseline's bundle is exported outside the work tree), else `cwd` itself.
 */
export async function pushCommandDir(exec: ExecFn, bundleDir: string, cwd?: string): Promise<string> {
  const fallback = resolve(cwd ?? process.cwd());
  return (await gitTopLevel(exec, bundleDir)) ?? (await gitTopLevel(exec, fallback)) ?? fallback;
}

/** Turns a failed imgpkg/push-command output into an error that names the registry and the fix. */
export function explainPushFailure(o: {
  what: string;
  host: string;
  code: number;
  output: string;
  username?: string;
}): DevpkgError {
  const out = o.output;
  if (/UNAUTHORIZED|authentication required|status code 401|DENIED|status code 403|incorrect username or password/i.test(out)) {
    const who = o.username ? `refused the credentials of user "${o.username}"` : 'requires credentials and none were given';
    return new DevpkgError(
      `${o.what}: registry ${o.host} ${who}; check registry-username / registry-password ` +
        `(CLI: --registry-username and DEVPKG_REGISTRY_PASSWORD)\n${lastLines(out, 5)}`,
    );
  }
  if (/connection refused|no such host|i\/o timeout|dial tcp|network is unreachable|server gave HTTP response to HTTPS client/i.test(out)) {
    return new DevpkgError(
      `${o.what}: registry ${o.host} is not reachable; check that it is running and that the address is right\n${lastLines(out, 5)}`,
    );
  }
  return new DevpkgError(`${o.what} failed (exit ${o.code}):\n${lastLines(out, 15)}`);
}

/**
 * The digest a push command's push left under the tag, checked in the registry before any
 * Package names it: every digest the command printed for the repository must be there, and the
 * tag must point at one of them. Each way it is not is an error naming the digest, the registry
 * and the command.
 */
async function pushedDigest(
  client: RegistryClient,
  o: { repository: Repository; tag: string; what: string; printed: string[] },
): Promise<string> {
  const repo = formatRepository(o.repository);
  for (const d of o.printed) {
    if (!(await client.hasManifest(o.repository.path, d))) {
      throw new DevpkgError(
        `${o.what} printed ${repo}@${d}, but registry ${o.repository.host} has no manifest ${d} in ${o.repository.path}: ` +
          `devpkg writes no Package referencing a digest the registry does not hold. ` +
          `Check that the command pushes to $DEVPKG_IMAGE (${repo}:${o.tag}) and prints the digest of that push`,
      );
    }
  }
  let digest: string;
  try {
    digest = await client.resolveDigest(o.repository.path, o.tag);
  } catch (err) {
    if (!/was not found in the registry/.test(errorMessage(err))) throw err;
    throw new DevpkgError(
      `${o.what} succeeded, but registry ${o.repository.host} has no tag ${o.tag} in ${o.repository.path}: ` +
        `the command must push the bundle to $DEVPKG_IMAGE (${repo}:${o.tag})`,
      { cause: err },
    );
  }
  if (o.printed.length && !o.printed.includes(digest)) {
    throw new DevpkgError(
      `${o.what} printed ${o.printed.map((d) => `${repo}@${d}`).join(', ')}, but in registry ${o.repository.host} the tag ${repo}:${o.tag} is ${digest}: ` +
        'something else pushed that tag since, or the command printed the digest of another push; run again, and check what the command pushes',
    );
  }
  return digest;
}

/**
 * Pushes a bundle folder and returns its digest reference. With imgpkg the digest comes from
 * the BundleLock; with a push command, from the registry (a manifest HEAD), never guessed.
 */
export async function pushBundle(o: PushBundleOptions): Promise<PushBundleResult> {
  const log = o.log ?? (() => undefined);
  const exec = o.exec ?? execTool;
  const repository = o.repository;
  const tag = validateTag(o.tag);
  const repo = formatRepository(repository);
  const bundleDir = resolve(o.bundleDir);
  const login: RegistryLogin | undefined = o.credentials
    ? { host: repository.host, username: o.credentials.username, password: o.credentials.password }
    : undefined;
  const scrub = (t: string) => (login ? scrubSecrets(t, [login.password], login) : t);

  if (o.lockImages) {
    const kbld = o.kbld ?? (await Kbld.create(exec, await ensureCarvelTool('kbld', { pin: o.tools?.kbld, install: o.install, log })));
    log(`locking the images of ${bundleDir}/config with kbld`);
    await kbld.lockImages(bundleDir, login);
  }
  if (!o.pushCommand) await checkBundleDir(bundleDir);

  const client = new RegistryClient(repository.host, { credentials: o.credentials, plainHttp: o.plainHttp, fetch: o.fetch });

  if (o.pushCommand) {
    // Check the registry before a possibly long build: "not running" and "wrong password"
    // become errors that name the registry, not a make failure deep in its output.
    await client.check(repository.path, 'pull,push');
    const env = {
      ...pushCommandEnv({ repository, tag, bundleDir, package: o.env?.package, version: o.env?.version }),
      ...(login ? imgpkgAuthEnv(login, process.env) : {}),
    };
    const [cmd, args] = pushCommandArgs(o.pushCommand);
    const cwd = await pushCommandDir(exec, bundleDir, o.cwd);
    log(`running the push command for ${repo}:${tag} in ${cwd}: ${o.pushCommand}`);
    const what = `push command \`${o.pushCommand}\``;
    const timeoutMs = o.timeoutMs ?? PUSH_TIMEOUT_MS;
    const r = await exec(cmd, args, { env, cwd, allowFail: true, processGroup: true, timeoutMs, ...(o.signal ? { signal: o.signal } : {}) }).catch((err: unknown) => {
      if (!(err instanceof ExecTimeoutError)) throw err;
      const output = scrub(`${err.stdout}\n${err.stderr}`).trim();
      throw new DevpkgError(
        `${what} did not finish within ${formatDuration(timeoutMs)} (push-timeout; CLI --push-timeout) and was stopped with every process it started ` +
          `(its process group: SIGTERM, then SIGKILL); nothing was pushed to ${repo}:${tag} that devpkg will use. ` +
          `Find what it waits for (a prompt, a lock, a registry that does not answer) or raise push-timeout` +
          `${output ? `\n${lastLines(output, 10)}` : ''}`,
        { cause: err },
      );
    });
    const output = scrub(`${r.stdout}\n${r.stderr}`);
    if (r.code !== 0) {
      throw explainPushFailure({ what, host: repository.host, code: r.code, output, username: login?.username });
    }
    if (output.trim()) log(lastLines(output, 20));
    const digest = await pushedDigest(client, { repository, tag, what, printed: printedDigests(output, repo) });
    log(`pushed ${repo}:${tag} -> ${digest}`);
    return { image: `${repo}@${digest}`, digest, tag };
  }

  const imgpkg = o.imgpkg ?? (await Imgpkg.create(exec, await ensureCarvelTool('imgpkg', { pin: o.tools?.imgpkg, install: o.install, log })));
  const tmp = o.lockOutput ? undefined : await mkdtemp(join(tmpdir(), 'devpkg-lock-'));
  try {
    const lockFile = o.lockOutput ? resolve(o.lockOutput) : join(tmp as string, 'bundle.lock.yml');
    log(`imgpkg push -b ${repo}:${tag} -f ${bundleDir}`);
    const r = await imgpkg.push({
      image: `${repo}:${tag}`,
      bundleDir,
      lockOutput: lockFile,
      insecure: o.plainHttp === true && !usesPlainHttp(repository.host),
      login,
    });
    if (r.code !== 0) {
      // The registry client says plainly whether the registry is down or refused the
      // credentials; only if it finds nothing wrong is imgpkg's own message shown.
      await client.check(repository.path, 'pull,push');
      throw explainPushFailure({
        what: `imgpkg push -b ${repo}:${tag}`,
        host: repository.host,
        code: r.code,
        output: `${r.stdout}\n${r.stderr}`,
        username: login?.username,
      });
    }
    const lock = parseBundleLock(await readFile(lockFile, 'utf8'), `imgpkg's lock output ${lockFile}`);
    log(`pushed ${repo}:${tag} -> ${lock.digest}`);
    return { image: lock.image, digest: lock.digest, tag, ...(o.lockOutput ? { lockFile } : {}) };
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * Copies a bundle that is used as it is (a package repository's Package names it) into the
 * registry a cluster pulls from (kind mode's local one), keeping its digest: `imgpkg copy`.
 */
export async function copyBundle(o: { image: string; repository: Repository; exec?: ExecFn; log?: (m: string) => void }): Promise<PushBundleResult> {
  const exec = o.exec ?? execTool;
  const imgpkg = await Imgpkg.create(exec, await ensureCarvelTool('imgpkg', { log: o.log }));
  const tmp = await mkdtemp(join(tmpdir(), 'devpkg-copy-'));
  try {
    const lockFile = join(tmp, 'bundle.lock.yml');
    const toRepo = formatRepository(o.repository);
    o.log?.(`imgpkg copy -b ${o.image} --to-repo ${toRepo}`);
    const r = await imgpkg.copy({ image: o.image, toRepo, lockOutput: lockFile });
    if (r.code !== 0) throw explainPushFailure({ what: `imgpkg copy -b ${o.image} --to-repo ${toRepo}`, host: o.repository.host, code: r.code, output: `${r.stdout}\n${r.stderr}` });
    const lock = parseBundleLock(await readFile(lockFile, 'utf8'), `imgpkg's lock output ${lockFile}`);
    return { image: lock.image, digest: lock.digest, tag: '' };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

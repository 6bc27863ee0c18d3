import { DevpkgError, UsageError } from '../errors.js';

/** A registry repository split into the host that serves it and the path inside it. */
export interface Repository {
  /** host[:port] as written, e.g. `localhost:5001`, `ghcr.io`, `172.18.0.2:5000`. */
  host: string;
  /** Repository path, e.g. `vmware-tanzu/antrea`. */
  path: string;
}

// The OCI distribution spec's grammar for tags and repository path components.
const TAG_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const PATH_COMPONENT_RE = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DIGEST_RE = /^sha256:[a-f0-9]{64}$/;

/**
 * Checks a tag against the OCI grammar. A `+` (semver build metadata) is the usual
 * offender, so that case gets its own hint.
 */
export function validateTag(tag: string): string {
  if (TAG_RE.test(tag)) return tag;
  if (tag.includes('+')) {
    throw new UsageError(
      `tag "${tag}" contains "+", which OCI tags cannot hold; use "${tag.replace(/\+/g, '_')}" ` +
        '(devpkg writes a version\'s "+" as "_" in tags)',
    );
  }
  if (tag === '') throw new UsageError('the bundle tag is empty; pass a tag such as 1.2.3_dev.1');
  throw new UsageError(
    `tag "${tag}" is not a valid OCI tag: use letters, digits, "_", "." and "-" only, ` +
      'not starting with "." or "-", at most 128 characters',
  );
}

/**
 * Checks an image reference as docker and containerd parse one: `[HOST[:PORT]/]PATH[:TAG][@sha256:HEX]`,
 * PATH lowercase components, the tag by the OCI grammar. `what` names the input in the error (pure).
 */
export function checkImageReference(text: string, what: string): string {
  const ref = text.trim();
  const bad = (why: string) =>
    new UsageError(`${what}: "${text}" is not an image reference (${why}); write it as [HOST[:PORT]/]PATH[:TAG][@sha256:HEX], e.g. registry:3 or mirror.example.com/library/registry:3`);
  if (ref === '') throw bad('it is empty');
  if (/\s/.test(ref)) throw bad('it contains a space');
  const at = ref.indexOf('@');
  const digest = at >= 0 ? ref.slice(at + 1) : undefined;
  if (digest !== undefined && !DIGEST_RE.test(digest)) throw bad(`"${digest}" is not sha256:<64 lowercase hex digits>`);
  let name = at >= 0 ? ref.slice(0, at) : ref;
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) {
    const tag = name.slice(colon + 1);
    if (!TAG_RE.test(tag)) throw bad(`tag "${tag}" holds characters a tag cannot`);
    name = name.slice(0, colon);
  }
  const parts = name.split('/');
  // The first part is a registry host when it looks like one (a dot, a port, or localhost).
  if (parts.length > 1 && /[.:]|^localhost$/.test(parts[0]!)) {
    if (!/^[A-Za-z0-9.-]+(:\d+)?$/.test(parts[0]!)) throw bad(`"${parts[0]}" is not HOST[:PORT]`);
    parts.shift();
  }
  for (const c of parts) {
    if (!PATH_COMPONENT_RE.test(c)) throw bad(c.toLowerCase() !== c ? `repository path "${parts.join('/')}" must be lowercase` : `"${c}" is not a repository path component`);
  }
  return ref;
}

/** What devpkg appends to a package's name to name its bundle repository. */
export const BUNDLE_SUFFIX = '-bundle';

/**
 * A registry location where dev bundles are pushed or pulled from: HOST[:PORT] and an optional
 * path. Parsed once where it enters (flags.ts `parseRegistry`, for every flag and input) and
 * passed on typed; nothing below the edge trims or splits registry text again.
 */
export interface Registry {
  /** host[:port] as written, e.g. `localhost:5001`, `ghcr.io`, `172.18.0.2:5000`. */
  readonly host: string;
  /** The path under the host without leading or trailing slashes; '' for none. */
  readonly path: string;
}

/** `host[/path]`, as users write a registry. */
export function registryText(r: Registry): string {
  return r.path ? `${r.host}/${r.path}` : r.host;
}

/**
 * The repository a package's bundle is pushed to: `<registry>/<package>-bundle`. Never the bare
 * `<registry>/<package>`, which is the name a package's own workload image often has: with the
 * bundle in the same repository, imgpkg (inside kapp-controller) finds the workload's image there
 * by digest and rewrites its reference to the bundle's registry address, which the kubelet may
 * not reach. Used by every mode (plan, kind, cluster, bootstrap), through the dev plan.
 */
export function bundleRepository(registry: Registry, packageName: string): Repository {
  const name = `${packageName}${BUNDLE_SUFFIX}`;
  if (!PATH_COMPONENT_RE.test(name)) {
    throw new DevpkgError(
      `package "${packageName}" cannot name a bundle repository ("${name}"): repository names use lowercase letters, digits ` +
        'and single separators (".", "_", "__", "-"); rename the package folder',
    );
  }
  return { host: registry.host, path: registry.path ? `${registry.path}/${name}` : name };
}

function looksLikeHost(part: string): boolean {
  return part === 'localhost' || part.includes('.') || part.includes(':') || part.startsWith('[');
}

/**
 * Parses `host[:port]/path` (no scheme, no tag). The host must be explicit: devpkg
 * never guesses Docker Hub, since a bundle pushed to the wrong place is hard to spot.
 */
export function parseRepository(text: string): Repository {
  const t = text.trim().replace(/\/+$/, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) {
    throw new UsageError(`repository "${text}": write it without a scheme, as HOST[:PORT]/PATH (e.g. localhost:5001/devpkg/antrea)`);
  }
  const slash = t.indexOf('/');
  const host = slash < 0 ? t : t.slice(0, slash);
  const path = slash < 0 ? '' : t.slice(slash + 1);
  if (!host || !looksLikeHost(host)) {
    throw new UsageError(
      `repository "${text}" does not start with a registry host; write HOST[:PORT]/PATH, e.g. ` +
        `ghcr.io/my-org/${t || 'my-package'} or localhost:5001/${t || 'my-package'}`,
    );
  }
  if (!path) {
    throw new UsageError(`repository "${text}" names only the registry; add a path, e.g. ${host}/devpkg/my-package`);
  }
  for (const part of path.split('/')) {
    if (!PATH_COMPONENT_RE.test(part)) {
      throw new UsageError(
        `repository "${text}": path component "${part}" is not valid; use lowercase letters, digits and ` +
          'single separators (".", "_", "__", "-")',
      );
    }
  }
  return { host, path };
}

/**
 * Splits `REPO:TAG` (the CLI's --image). The tag is after the last ":" that follows the
 * last "/", so a registry port is never mistaken for a tag.
 */
export function parseImageTag(text: string): { repository: Repository; tag: string } {
  const t = text.trim();
  if (t.includes('@')) {
    throw new UsageError(`image "${text}": give REPO:TAG, not a digest; devpkg prints the digest after pushing`);
  }
  const lastSlash = t.lastIndexOf('/');
  const colon = t.lastIndexOf(':');
  if (colon <= lastSlash) {
    throw new UsageError(`image "${text}" has no tag; give REPO:TAG, e.g. localhost:5001/devpkg/antrea:1.2.3_dev.1`);
  }
  const repository = parseRepository(t.slice(0, colon));
  const tag = validateTag(t.slice(colon + 1));
  return { repository, tag };
}

export function formatRepository(r: Repository): string {
  return `${r.host}/${r.path}`;
}

/** Splits `host/path@sha256:...` into its repository and digest. */
export function parseDigestReference(ref: string): { repository: Repository; digest: string } {
  const at = ref.lastIndexOf('@');
  const digest = at < 0 ? '' : ref.slice(at + 1);
  if (at < 0 || !DIGEST_RE.test(digest)) {
    throw new UsageError(`"${ref}" is not a digest reference (REPO@sha256:<64 hex digits>)`);
  }
  return { repository: parseRepository(ref.slice(0, at)), digest };
}

export function isDigest(text: string): boolean {
  return DIGEST_RE.test(text);
}

function hostname(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function isRfc1918(ip: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168);
}

/**
 * Whether go-containerregistry (and so imgpkg and kapp-controller) talks plain HTTP
 * to this host: localhost, loopback, `*.local` and RFC1918 addresses. Everything else is HTTPS.
 */
export function usesPlainHttp(host: string): boolean {
  const name = hostname(host).toLowerCase();
  if (name === 'localhost' || name === '::1') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return true;
  if (name.endsWith('.local')) return true;
  return isRfc1918(name);
}

/** Docker Hub's API lives on registry-1.docker.io, whatever name users give it. */
export function apiHost(host: string): string {
  return host === 'docker.io' || host === 'index.docker.io' ? 'registry-1.docker.io' : host;
}

/**
 * The same image seen from another place: `localhost:5001/devpkg/x@sha256:..` pushed from the
 * host becomes `172.18.0.2:5000/devpkg/x@sha256:..` for kapp-controller inside the kind cluster.
 */
export function rewriteImageHost(image: string, fromHost: string, toHost: string): string {
  if (!image.startsWith(`${fromHost}/`)) {
    throw new UsageError(`image "${image}" is not on ${fromHost}; cannot rewrite it to ${toHost}`);
  }
  return `${toHost}${image.slice(fromHost.length)}`;
}

/** Whether a registry host is localhost or a loopback address (as seen from where it is used). */
export function isLoopbackHost(host: string): boolean {
  const name = hostname(host).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || name === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/**
 * Where the cluster pulls a pushed image from. `pull` is HOST[:PORT] (only the host changes: same
 * repository path, same digest) or HOST[:PORT]/PATH (it replaces the push registry `push` at the
 * front of the image, for a mirror with another path). Without `pull`, the image as pushed.
 */
export function clusterImage(image: string, push: Registry, pull: Registry | undefined): string {
  if (!pull) return image;
  const pushHost = image.slice(0, image.indexOf('/'));
  if (!pull.path) return rewriteImageHost(image, pushHost, pull.host);
  const from = registryText(push);
  if (!image.startsWith(`${from}/`)) {
    throw new UsageError(`image "${image}" is not under the push registry ${from}; cannot map it to ${registryText(pull)}`);
  }
  return `${registryText(pull)}${image.slice(from.length)}`;
}

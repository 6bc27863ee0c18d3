import { Document } from 'yaml';
import { DevpkgError } from '../errors.js';
import { lineOf, refNameProblem, versionProblem, type Package, type PackageResource } from './model.js';

export const DERIVED_FROM_ANNOTATION = 'devpkg.dev/derived-from';

/** Server-set metadata: meaningless (or rejected) on a new object. */
const RUNTIME_METADATA = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'generation',
  'managedFields',
  'ownerReferences',
  'finalizers',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
];

/**
 * Labels and annotations that tools put on a Package they applied: kapp's bookkeeping, kubectl's
 * last-applied copy, and kapp-controller's owner marks for repository-provided Packages
 * (`packaging.carvel.dev/package-repository-ref: <ns>/<name>`). Keeping the repository ref
 * would make the dev Package look repository-owned.
 */
export function isToolMetadataKey(key: string): boolean {
  return (
    key.startsWith('kapp.k14s.io/') ||
    key === 'kubectl.kubernetes.io/last-applied-configuration' ||
    key.startsWith('packaging.carvel.dev/package-repository')
  );
}

export interface DeriveOptions {
  /** The dev version, strict semver. */
  version: string;
  /** The pushed bundle, `repo@sha256:<64 hex>` (or `repo:tag` with allowTag). */
  image: string;
  /** Replaces metadata.namespace; otherwise the Package's own namespace is kept. */
  namespace?: string;
  /** Replaces spec.refName, e.g. TCE's antrea.community.tanzu.vmware.com -> antrea.tanzu.vmware.com. */
  refName?: string;
  /** Accept an image referenced by tag (kapp-controller then re-resolves it on every sync). */
  allowTag?: boolean;
}

export interface DerivedPackage {
  pkg: Package;
  /** True when the bundle is referenced by digest. */
  imagePinned: boolean;
  /** The original Package's metadata.name. */
  derivedFrom: string;
}

export type ImageRef = { repository: string; tag?: string; digest?: string };

const REPO = /^[a-zA-Z0-9.-]+(?::[0-9]+)?(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+$|^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;

/** Splits an image reference; undefined when it is neither `repo@sha256:<hex>` nor `repo:tag`. */
export function parseImageRef(image: string): ImageRef | undefined {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return undefined;
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return undefined;
  }
  if (!REPO.test(rest)) return undefined;
  if (!digest && !tag) return undefined;
  return { repository: rest, ...(tag ? { tag } : {}), ...(digest ? { digest } : {}) };
}

function isPackageResource(x: Package | PackageResource): x is PackageResource {
  return 'pkg' in x && 'file' in x && 'lines' in x;
}

/** The one imgpkgBundle fetch of a Package (the entry devpkg points at the dev bundle), or why there is none. */
export function bundleFetch(pkg: Package, where: (path: string) => { file?: string; line?: number } = () => ({})): { image: string; [key: string]: unknown } {
  const fetch = pkg.spec.template?.spec?.fetch;
  const bundles = Array.isArray(fetch) ? fetch.filter((f) => f && typeof f === 'object' && f.imgpkgBundle) : [];
  if (bundles.length !== 1) {
    const kinds = Array.isArray(fetch) ? fetch.flatMap((f) => Object.keys(f ?? {})).join(', ') : '';
    const found = bundles.length > 1 ? `${bundles.length} imgpkgBundle fetches` : kinds ? `only ${kinds}` : 'no fetch at all';
    throw new DevpkgError(
      `Package ${pkg.metadata.name} must fetch exactly one imgpkgBundle in spec.template.spec.fetch (found ${found}); devpkg replaces that bundle image with the dev bundle`,
      where('spec.template.spec.fetch'),
    );
  }
  return bundles[0]!.imgpkgBundle!;
}

/**
 * The dev Package made from a released one (from a package.yaml or read back from a cluster):
 * runtime and tool metadata removed, name/version/bundle image replaced, a
 * `devpkg.dev/derived-from` annotation added; everything else is kept as it was.
 */
export function deriveDevPackage(source: Package | PackageResource, opts: DeriveOptions): DerivedPackage {
  const original = isPackageResource(source) ? source.pkg : source;
  const where = (p: string) => (isPackageResource(source) ? { file: source.file, line: lineOf(source, p) } : {});
  const vProblem = versionProblem(opts.version);
  if (vProblem) throw new DevpkgError(`dev version ${vProblem}`, { exitCode: 2 });
  const refName = opts.refName ?? original.spec.refName;
  const rProblem = opts.refName === undefined ? undefined : refNameProblem(opts.refName);
  if (rProblem) throw new DevpkgError(`ref-name ${rProblem}`, { exitCode: 2 });

  const ref = parseImageRef(opts.image);
  if (!ref) {
    throw new DevpkgError(`bundle image "${opts.image}" is not an image reference; use repo@sha256:<64 hex digits> (imgpkg push --lock-output gives it)`, { exitCode: 2 });
  }
  const imagePinned = ref.digest !== undefined;
  if (!imagePinned && !opts.allowTag) {
    throw new DevpkgError(
      `bundle image "${opts.image}" is referenced by tag; a dev Package must pin its bundle by digest (repo@sha256:...), or kapp-controller may fetch something else`,
      { exitCode: 2 },
    );
  }

  const pkg = structuredClone(original) as Package;
  delete pkg.status;
  bundleFetch(pkg, where).image = opts.image;

  const md = pkg.metadata;
  for (const key of RUNTIME_METADATA) delete md[key];
  for (const field of ['labels', 'annotations'] as const) {
    const m = md[field];
    if (!m) continue;
    for (const key of Object.keys(m)) if (isToolMetadataKey(key)) delete m[key];
    if (Object.keys(m).length === 0) delete md[field];
  }
  md.name = `${refName}.${opts.version}`;
  if (opts.namespace !== undefined) {
    if (md.namespace === undefined) {
      // Keep the usual order: name, namespace, then the rest.
      const { name, ...rest } = md;
      pkg.metadata = { name, namespace: opts.namespace, ...rest };
    } else {
      md.namespace = opts.namespace;
    }
  }
  pkg.metadata.annotations = { ...(pkg.metadata.annotations ?? {}), [DERIVED_FROM_ANNOTATION]: original.metadata.name };
  pkg.spec.refName = refName;
  pkg.spec.version = opts.version;
  return { pkg, imagePinned, derivedFrom: original.metadata.name };
}

/**
 * Stable YAML for a Package: key order as given, block sequences at the parent's indent like
 * kubectl, no line folding. Strings are quoted by YAML 1.1 rules, because kubectl, the API
 * server and ytt read YAML 1.1 (`on`, `yes`, `0755` would otherwise stop being strings); strings
 * starting with `#` are always quoted, so the text is also safe inside a ytt template.
 */
export function devPackageToYaml(pkg: Package): string {
  return new Document(pkg, { version: '1.1' }).toString({ lineWidth: 0, indentSeq: false });
}

/**
 * devPackageToYaml of `{ ...pkg, metadata }` (pure), given `text`, devPackageToYaml(pkg): the one
 * top-level `metadata:` entry is rendered and put in place of pkg's, so a big Package is not
 * stringified twice. The yaml library renders each top-level entry of a created document on its
 * own (no comments, entries joined by newlines); only anchors tie entries together (an object
 * met twice), and then the entry rendered alone differs from the one in `text` (an object
 * written in full where the text has `*a1`, or `&a1` where it has none or `&a2`): when pkg's
 * entry rendered alone is not in `text` as a whole line, or `metadata` holds an object pkg's does
 * not, the whole is rendered.
 */
export function withMetadataYaml(pkg: Package, text: string, metadata: Package['metadata']): string {
  const whole = () => devPackageToYaml({ ...pkg, metadata });
  // An object new to metadata may be one spec holds too (an anchor the text does not have).
  const own = new Set(Object.values(pkg.metadata ?? {}));
  if (Object.values(metadata).some((v) => typeof v === 'object' && v !== null && !own.has(v))) return whole();
  const entry = (m: Package['metadata']) => devPackageToYaml({ metadata: m } as unknown as Package);
  const before = entry(pkg.metadata);
  // Only a top-level key starts a line with `metadata:` (everything nested is indented).
  let at = 0;
  if (!text.startsWith(before)) {
    const i = text.indexOf(`\n${before}`);
    if (i < 0) return whole();
    at = i + 1;
  }
  return text.slice(0, at) + entry(metadata) + text.slice(at + before.length);
}

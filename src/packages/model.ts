import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Node } from 'yaml';
import semver from 'semver';
import { DevpkgError } from '../errors.js';
import type { Problem } from './problems.js';
import { duplicateKey } from './yaml-keys.js';
import { fastDocuments } from './fast-yaml.js';

export const PACKAGE_API_VERSION = 'data.packaging.carvel.dev/v1alpha1';

export interface ObjectMeta {
  name?: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** One entry of an App's `spec.fetch`; devpkg only looks into `imgpkgBundle`. */
export interface AppFetch {
  imgpkgBundle?: { image: string; [key: string]: unknown };
  [key: string]: unknown;
}

export interface AppSpec {
  fetch?: AppFetch[];
  template?: unknown[];
  deploy?: unknown[];
  [key: string]: unknown;
}

export interface VersionSelection {
  constraints?: string;
  [key: string]: unknown;
}

export interface PackageSpec {
  refName: string;
  version: string;
  releasedAt?: string | null;
  template?: { spec?: AppSpec; [key: string]: unknown };
  valuesSchema?: unknown;
  kubernetesVersionSelection?: VersionSelection;
  kappControllerVersionSelection?: VersionSelection;
  [key: string]: unknown;
}

/** A Package (data.packaging.carvel.dev/v1alpha1). Unknown fields are kept as they are. */
export interface Package {
  apiVersion: typeof PACKAGE_API_VERSION;
  kind: 'Package';
  metadata: ObjectMeta & { name: string };
  spec: PackageSpec;
  [key: string]: unknown;
}

export interface PackageMetadata {
  apiVersion: typeof PACKAGE_API_VERSION;
  kind: 'PackageMetadata';
  metadata: ObjectMeta & { name: string };
  spec?: { displayName?: string; shortDescription?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * A Package read from a file, with the line of every node so that later checks
 * (e.g. the folder name against spec.version) can point at the right line.
 */
export interface PackageResource {
  file: string;
  pkg: Package;
  /** 1-based line of a node by its dotted path (`spec.version`, `spec.template.spec.fetch.0`). */
  lines: Record<string, number>;
  /**
   * What is wrong but can be planned around (kapp-controller itself accepts it, and the dev
   * Package devpkg derives gets a fresh, correct name): e.g. metadata.name is not
   * refName.version. Real repositories have such files (TCE's prometheus/2.36.2).
   */
  warnings: Problem[];
}

export interface PackageMetadataResource {
  file: string;
  metadata: PackageMetadata;
  lines: Record<string, number>;
}

/** 1-based line of `path` in a resource, falling back to its closest ancestor that has one. */
export function lineOf(res: { lines: Record<string, number> }, path: string): number | undefined {
  for (let p = path; ; p = p.slice(0, p.lastIndexOf('.'))) {
    if (res.lines[p] !== undefined) return res.lines[p];
    if (!p.includes('.')) return res.lines[''];
  }
}

// Same rules as kapp-controller's validation: a DNS-1123 subdomain with at least three labels.
const REFNAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$/;

/** Why `version` is not a strict semver version that kapp-controller accepts, or undefined when it is. */
export function versionProblem(version: string): string | undefined {
  if (/^[vV=]/.test(version)) {
    const bare = version.replace(/^[vV=]+/, '');
    return `"${version}" must be strict semver without a leading "${version[0]}"; write ${bare}`;
  }
  if (version.trim() !== version || semver.parse(version) === null) {
    return `"${version}" is not a semver version (MAJOR.MINOR.PATCH[-prerelease][+build], e.g. 1.5.3+vmware.1)`;
  }
  return undefined;
}

/** Why `refName` is not a valid Package refName, or undefined when it is. */
export function refNameProblem(refName: string): string | undefined {
  if (refName.length > 253 || !REFNAME.test(refName)) {
    return `"${refName}" is not a valid refName: it must be a lower-case DNS name with at least three parts, e.g. antrea.tanzu.vmware.com`;
  }
  return undefined;
}

export interface ParsedDoc {
  lines: Record<string, number>;
  value: unknown;
}

/**
 * Parses every document of a YAML text that holds something; YAML errors become DevpkgErrors
 * with a line. js-yaml reads it where it reads what the yaml library reads (fast-yaml.ts), the
 * library everywhere else (and for its errors); `fast: false` asks the library (tests compare).
 */
export function parseDocs(text: string, file: string, fast = true): ParsedDoc[] {
  const docs = fast ? fastDocuments(text) : undefined;
  if (!docs) return libraryDocs(text, file);
  let library: ParsedDoc[] | undefined;
  return docs.map((d, i) => ({
    value: d.value,
    lines: lazyRecord({ '': d.line }, () => d.lines() ?? (library ??= libraryDocs(text, file))[i]?.lines ?? { '': d.line }),
  }));
}

/** The yaml library's reading: values, errors with lines, the duplicate-key check. */
function libraryDocs(text: string, file: string): ParsedDoc[] {
  const lineCounter = new LineCounter();
  // uniqueKeys off: the library's check is quadratic in a map's keys; duplicateKey is linear.
  const docs = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  if (!Array.isArray(docs)) return [];
  const out: ParsedDoc[] = [];
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) {
      // An unclosed [ { or quote is noticed where the collection or string should have ended;
      // the line that opened it is the one to fix.
      const opened = unclosedOpening(text, err.pos[0], err.message);
      const line = lineCounter.linePos(opened ?? err.pos[0]).line;
      const fix = opened === undefined ? 'fix the YAML at this line' : `the ${text[opened]} opened at this line is never closed`;
      throw new DevpkgError(`YAML syntax error (${err.code}): ${err.message}; ${fix}`, { file, line, cause: err });
    }
    const dup = duplicateKey(doc);
    if (dup) throw duplicateKeyError(dup, file, lineCounter);
    if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) continue;
    out.push({ lines: lazyLines(doc.contents, lineCounter), value: doc.toJS({ maxAliasCount: 100 }) });
  }
  return out;
}

/** The error of a repeated key, worded as the yaml library words its own (DUPLICATE_KEY). */
export function duplicateKeyError(dup: { key: string; pos: number }, file: string, lc: LineCounter): DevpkgError {
  return new DevpkgError(`YAML syntax error (DUPLICATE_KEY): Map keys must be unique (${JSON.stringify(dup.key)} is repeated); fix the YAML at this line`, {
    file,
    line: lc.linePos(dup.pos).line,
  });
}

/**
 * Pure: the offset of the [ { or quote that a "must end with a ]" / "Missing closing quote"
 * error at `pos` is about (the nearest unmatched one before it), or undefined for other errors.
 */
export function unclosedOpening(text: string, pos: number, message: string): number | undefined {
  const quote = /Missing closing (["'])quote/.exec(message)?.[1];
  if (quote) {
    const i = text.lastIndexOf(quote, pos - 1);
    return i >= 0 ? i : undefined;
  }
  const closer = /end with an? ([\]}])/.exec(message)?.[1];
  if (!closer) return undefined;
  const opener = closer === ']' ? '[' : '{';
  let depth = 0;
  for (let i = Math.min(pos, text.length) - 1; i >= 0; i--) {
    if (text[i] === closer) depth++;
    else if (text[i] === opener && depth-- === 0) return i;
  }
  return undefined;
}

/**
 * The line of every path of a document, collected on first use: a valid Package's lines are
 * mostly never asked for, and collecting them (a key path and a line look-up per node) was a
 * tenth of parsing a big one. Reads as a plain record (lineOf, a test's toEqual).
 */
function lazyLines(contents: Node | null, lc: LineCounter): Record<string, number> {
  const lines: Record<string, number> = {};
  // The document's own line (every Package document is named by it) is known without the rest.
  if (contents?.range) lines[''] = lc.linePos(contents.range[0]).line;
  return lazyRecord(lines, () => {
    collectLines(contents, '', lines, lc);
    return lines;
  });
}

/**
 * A record whose '' entry is `known` at once and whose other entries `fill` makes on first use;
 * reads as a plain record (lineOf, a test's toEqual).
 */
function lazyRecord(known: Record<string, number>, fill: () => Record<string, number>): Record<string, number> {
  let full: Record<string, number> | undefined;
  const get = () => (full ??= fill());
  return new Proxy(known, {
    get: (_t, k) => (k === '' && !full ? known[''] : Reflect.get(get(), k)),
    has: (_t, k) => Reflect.has(get(), k),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_t, k) => Reflect.getOwnPropertyDescriptor(get(), k),
  });
}

function collectLines(node: Node | null, path: string, lines: Record<string, number>, lc: LineCounter): void {
  if (!node) return;
  if (node.range) lines[path] = lc.linePos(node.range[0]).line;
  const child = (p: string | number) => (path === '' ? String(p) : `${path}.${p}`);
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      // A key's own line is the most useful place for "wrong value" errors on block values.
      const keyNode = pair.key as Node | null;
      if (keyNode && keyNode.range) lines[child(key)] = lc.linePos(keyNode.range[0]).line;
      const value = pair.value as Node | null;
      if (value && (isMap(value) || isSeq(value))) {
        collectLines(value, child(key), lines, lc);
        if (keyNode && keyNode.range) lines[child(key)] = lc.linePos(keyNode.range[0]).line;
      } else if (value && value.range) {
        lines[child(key)] = lc.linePos(value.range[0]).line;
      }
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => collectLines(item as Node, child(i), lines, lc));
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function describeDoc(v: unknown): string {
  if (!isRecord(v)) return `a ${Array.isArray(v) ? 'list' : typeof v}`;
  return `kind ${JSON.stringify(v.kind ?? null)} (apiVersion ${JSON.stringify(v.apiVersion ?? null)})`;
}

/**
 * Parses a package.yaml. It may hold other documents (PackageMetadata, say), but exactly one
 * Package. Errors name the field, the file and the line, and say what to write instead.
 */
export function parsePackageFile(text: string, file: string): PackageResource {
  const docs = parseDocs(text, file);
  const pkgs = docs.filter((d) => isRecord(d.value) && d.value.kind === 'Package');
  if (pkgs.length === 0) {
    const first = docs[0];
    if (!first) {
      throw new DevpkgError(`no Package in ${file}: the file is empty; it must hold one Package (apiVersion ${PACKAGE_API_VERSION}, kind Package)`, { file, line: 1 });
    }
    throw new DevpkgError(
      `not a Package: ${file} holds ${docs.map((d) => describeDoc(d.value)).join(', ')}; expected apiVersion ${PACKAGE_API_VERSION}, kind Package`,
      { file, line: lineOf(first, 'kind') ?? 1 },
    );
  }
  if (pkgs.length > 1) {
    const names = pkgs.map((d) => (isRecord(d.value) && isRecord(d.value.metadata) ? String(d.value.metadata.name) : '?'));
    throw new DevpkgError(
      `${file} holds ${pkgs.length} Packages (${names.join(', ')}); put one Package per package.yaml, in its own version folder`,
      { file, line: lineOf(pkgs[1]!, 'kind') ?? 1 },
    );
  }
  return checkPackageDoc(pkgs[0]!, file);
}

/** Checks one parsed Package document (its lines are the file's). */
function checkPackageDoc(d: ParsedDoc, file: string): PackageResource {
  const { value, lines } = d;
  const res = { file, lines };
  const fail = (path: string, message: string): never => {
    throw new DevpkgError(message, { file, line: lineOf(res, path) ?? 1 });
  };
  const obj = value as Record<string, unknown>;
  if (obj.apiVersion !== PACKAGE_API_VERSION) {
    fail('apiVersion', `Package apiVersion is ${JSON.stringify(obj.apiVersion ?? null)}; write apiVersion: ${PACKAGE_API_VERSION}`);
  }
  if (!isRecord(obj.metadata)) fail('metadata', 'Package has no metadata; add metadata.name: <spec.refName>.<spec.version>');
  if (!isRecord(obj.spec)) fail('spec', 'Package has no spec; add spec.refName and spec.version');
  const metadata = obj.metadata as Record<string, unknown>;
  const spec = obj.spec as Record<string, unknown>;

  const refName = spec.refName;
  if (refName === undefined || refName === null || refName === '') fail('spec', 'Package spec.refName is missing; add spec.refName, e.g. antrea.tanzu.vmware.com');
  if (typeof refName !== 'string') fail('spec.refName', `Package spec.refName must be a string, not ${JSON.stringify(refName)}`);
  const refProblem = refNameProblem(refName as string);
  if (refProblem) fail('spec.refName', `Package spec.refName ${refProblem}`);

  const version = spec.version;
  if (version === undefined || version === null || version === '') fail('spec', 'Package spec.version is missing; add spec.version, e.g. 1.5.3+vmware.1');
  if (typeof version !== 'string') {
    fail('spec.version', `Package spec.version must be a string, not the ${typeof version} ${JSON.stringify(version)}; quote it: version: "${String(version)}"`);
  }
  const vProblem = versionProblem(version as string);
  if (vProblem) fail('spec.version', `Package spec.version ${vProblem}`);

  const expected = `${refName as string}.${version as string}`;
  if (metadata.name === undefined || metadata.name === null || metadata.name === '') {
    fail('metadata', `Package metadata.name is missing; add metadata.name: ${expected}`);
  }
  const warnings: Problem[] = [];
  if (metadata.name !== expected) {
    warnings.push({
      path: file,
      line: lineOf(res, 'metadata.name') ?? 1,
      severity: 'warning',
      message: `Package metadata.name ${JSON.stringify(metadata.name)} is not spec.refName + "." + spec.version; kapp-controller would refuse to create it as written (write name: ${expected}); the dev Package gets its own name, so devpkg goes on`,
    });
  }
  for (const field of ['labels', 'annotations'] as const) {
    const m = metadata[field];
    if (m !== undefined && m !== null && !isRecord(m)) fail(`metadata.${field}`, `Package metadata.${field} must be a map of strings`);
  }
  return { file, lines, pkg: value as Package, warnings };
}

/** One Package document of a file holding any number of them (a package repository's). */
export interface PackageDoc {
  /** The Package, when it is a usable one. */
  res?: PackageResource;
  /** Why it is not. */
  error?: DevpkgError;
  /** spec.refName and spec.version as written (strings or not), to name it even when broken. */
  refName?: string;
  version?: string;
  line: number;
}

/**
 * Every Package document of a YAML file (a package repository's `packages/` tree holds any
 * number per file), each checked as parsePackageFile checks one, and the refNames of its
 * PackageMetadata documents. A YAML syntax error throws (the whole file is unusable).
 */
export function parsePackageDocs(text: string, file: string): { packages: PackageDoc[]; metadata: string[] } {
  const docs = parseDocs(text, file);
  const packages: PackageDoc[] = [];
  const metadata: string[] = [];
  for (const d of docs) {
    if (!isRecord(d.value)) continue;
    if (d.value.kind === 'PackageMetadata' && isRecord(d.value.metadata) && typeof d.value.metadata.name === 'string') metadata.push(d.value.metadata.name);
    if (d.value.kind !== 'Package') continue;
    const spec = isRecord(d.value.spec) ? d.value.spec : {};
    const named = {
      ...(spec.refName !== undefined && spec.refName !== null ? { refName: String(spec.refName) } : {}),
      ...(spec.version !== undefined && spec.version !== null ? { version: String(spec.version) } : {}),
      line: lineOf(d, '') ?? 1,
    };
    try {
      packages.push({ res: checkPackageDoc(d, file), ...named });
    } catch (err) {
      if (!(err instanceof DevpkgError)) throw err;
      packages.push({ error: err, ...named });
    }
  }
  return { packages, metadata };
}

/** Parses a PackageMetadata file (metadata.yaml of the TCE layout). */
export function parsePackageMetadataFile(text: string, file: string): PackageMetadataResource {
  const docs = parseDocs(text, file);
  const found = docs.filter((d) => isRecord(d.value) && d.value.kind === 'PackageMetadata');
  if (found.length !== 1) {
    const what = found.length === 0 ? `no PackageMetadata (it holds ${docs.map((d) => describeDoc(d.value)).join(', ') || 'nothing'})` : `${found.length} PackageMetadata documents`;
    throw new DevpkgError(`${file} holds ${what}; it must hold exactly one PackageMetadata (apiVersion ${PACKAGE_API_VERSION})`, {
      file,
      line: found[1] ? lineOf(found[1], '') : 1,
    });
  }
  const { value, lines } = found[0]!;
  const res = { file, lines };
  const md = value as Record<string, unknown>;
  if (md.apiVersion !== PACKAGE_API_VERSION) {
    throw new DevpkgError(`PackageMetadata apiVersion is ${JSON.stringify(md.apiVersion ?? null)}; write apiVersion: ${PACKAGE_API_VERSION}`, {
      file,
      line: lineOf(res, 'apiVersion'),
    });
  }
  const name = isRecord(md.metadata) ? md.metadata.name : undefined;
  if (typeof name !== 'string' || name === '') {
    throw new DevpkgError('PackageMetadata metadata.name is missing; it is the refName, e.g. antrea.tanzu.vmware.com', { file, line: lineOf(res, 'metadata') });
  }
  return { file, lines, metadata: value as PackageMetadata };
}

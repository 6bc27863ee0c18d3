import { DevpkgError } from '../errors.js';

/**
 * Versions the way kapp-controller v0.30–v0.53 sees them: vendir's versions package on top of
 * carvel semver v4 (k14s/semver@266d47a, renamed carvel-dev/semver@8090ce4 — same code).
 * Unlike SemVer 2.0 (and npm `semver.compare`), build metadata takes part in ordering and
 * equality. Numbers are unsigned 64-bit in Go, hence bigint here.
 */

export interface Identifier {
  /** The identifier as written (for numeric ones, without leading zeros except in build metadata). */
  readonly str: string;
  /** Set when the identifier is all digits: compared by value. */
  readonly num?: bigint;
}

export interface ParsedVersion {
  /** The string this was parsed from, including a leading `v` if it had one. */
  readonly original: string;
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly prerelease: readonly Identifier[];
  readonly build: readonly Identifier[];
}

const MAX_UINT64 = (1n << 64n) - 1n;
const DIGITS = /^[0-9]*$/;
const ALNUM = /^[0-9A-Za-z-]*$/;

/** Result of a strict parse: a version, or carvel semver's reason it is not one. */
export type ParseResult = { ok: true; version: ParsedVersion } | { ok: false; error: string };

function parseUint(s: string): bigint | undefined {
  // Go's strconv.ParseUint(s, 10, 64): digits only, no sign, fits in 64 bits.
  if (s.length === 0 || !/^[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > MAX_UINT64 ? undefined : n;
}

function goParseUintError(s: string): string {
  return s.length === 0 ? `strconv.ParseUint: parsing "": invalid syntax` : `strconv.ParseUint: parsing "${s}": value out of range`;
}

function parseIdentifier(s: string, kind: 'PreRelease' | 'BuildMeta'): Identifier | string {
  if (s.length === 0) return `${kind} is empty`;
  if (DIGITS.test(s)) {
    const num = parseUint(s);
    if (num === undefined) return goParseUintError(s);
    // Leading zeros are an error in prerelease identifiers only; build metadata keeps them
    // (and then compares "01" equal to "1").
    if (kind === 'PreRelease' && s.length > 1 && s[0] === '0') {
      return `Numeric PreRelease version must not contain leading zeroes "${s}"`;
    }
    return { str: s, num };
  }
  if (!ALNUM.test(s)) return `Invalid character(s) found in ${kind} "${s}"`;
  return { str: s };
}

function parseNumberPart(s: string, name: string): bigint | string {
  if (!DIGITS.test(s)) return `Invalid character(s) found in ${name} number "${s}"`;
  if (s.length > 1 && s[0] === '0') return `${name[0].toUpperCase()}${name.slice(1)} number must not contain leading zeroes "${s}"`;
  const n = parseUint(s);
  return n === undefined ? goParseUintError(s) : n;
}

/**
 * carvel semver's strict `Parse`: MAJOR.MINOR.PATCH[-PRE][+BUILD], no leading `v`, no spaces,
 * no leading zeros in numbers or numeric prerelease identifiers. kapp-controller validates
 * Package.spec.version with exactly this.
 */
export function parseStrict(s: string, original = s): ParseResult {
  if (s.length === 0) return { ok: false, error: 'Version string empty' };
  const first = s.indexOf('.');
  const second = first < 0 ? -1 : s.indexOf('.', first + 1);
  if (second < 0) return { ok: false, error: 'No Major.Minor.Patch elements found' };
  const major = parseNumberPart(s.slice(0, first), 'major');
  if (typeof major === 'string') return { ok: false, error: major };
  const minor = parseNumberPart(s.slice(first + 1, second), 'minor');
  if (typeof minor === 'string') return { ok: false, error: minor };

  let rest = s.slice(second + 1);
  let buildParts: string[] = [];
  let preParts: string[] = [];
  const plus = rest.indexOf('+');
  if (plus >= 0) {
    buildParts = rest.slice(plus + 1).split('.');
    rest = rest.slice(0, plus);
  }
  const dash = rest.indexOf('-');
  if (dash >= 0) {
    preParts = rest.slice(dash + 1).split('.');
    rest = rest.slice(0, dash);
  }
  const patch = parseNumberPart(rest, 'patch');
  if (typeof patch === 'string') return { ok: false, error: patch };

  const prerelease: Identifier[] = [];
  for (const p of preParts) {
    const id = parseIdentifier(p, 'PreRelease');
    if (typeof id === 'string') return { ok: false, error: id };
    prerelease.push(id);
  }
  const build: Identifier[] = [];
  for (const p of buildParts) {
    const id = parseIdentifier(p, 'BuildMeta');
    if (typeof id === 'string') return { ok: false, error: id };
    build.push(id);
  }
  return { ok: true, version: { original, major, minor, patch, prerelease, build } };
}

/**
 * vendir's relaxed parse (`NewRelaxedSemver`): one leading `v` is dropped, then the strict
 * parse. Returns undefined for strings kapp-controller would silently skip.
 */
export function parseVersion(s: string): ParsedVersion | undefined {
  const r = parseRelaxed(s);
  return r.ok ? r.version : undefined;
}

export function parseRelaxed(s: string): ParseResult {
  return parseStrict(s.startsWith('v') ? s.slice(1) : s, s);
}

// Go's unicode.IsSpace set, for strings.TrimSpace.
const GO_SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const GO_TRIM = new RegExp(`^${GO_SPACE}+|${GO_SPACE}+$`, 'g');

/**
 * carvel semver's `ParseTolerant`, which kapp-controller applies to the cluster's Kubernetes
 * version and its own version: trims spaces, drops a `v`, strips leading zeros from the three
 * dot-separated parts and pads `1.24` to `1.24.0`.
 */
export function parseTolerant(input: string): ParseResult {
  let s = input.replace(GO_TRIM, '');
  if (s.startsWith('v')) s = s.slice(1);
  const parts = splitN(s, '.', 3).map((p) => {
    if (p.length <= 1) return p;
    const t = p.replace(/^0+/, '');
    return t.length === 0 || !/^[0-9]/.test(t) ? `0${t}` : t;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1])) {
      return { ok: false, error: 'Short version cannot contain PreRelease/Build meta data' };
    }
    while (parts.length < 3) parts.push('0');
  }
  return parseStrict(parts.join('.'), input);
}

function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

function cmpBig(a: bigint, b: bigint): number {
  return a === b ? 0 : a > b ? 1 : -1;
}

function compareIdentifier(a: Identifier, b: Identifier): number {
  const an = a.num !== undefined;
  const bn = b.num !== undefined;
  if (an && bn) return cmpBig(a.num as bigint, b.num as bigint);
  if (an) return -1; // numeric identifiers sort before alphanumeric ones
  if (bn) return 1;
  // Byte-wise: identifiers are ASCII here, so UTF-16 code unit order is byte order.
  return a.str === b.str ? 0 : a.str > b.str ? 1 : -1;
}

function compareLists(a: readonly Identifier[], b: readonly Identifier[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** carvel semver's Version.Compare on parsed versions: -1, 0 or 1. */
export function compareParsed(a: ParsedVersion, b: ParsedVersion): number {
  const core = cmpBig(a.major, b.major) || cmpBig(a.minor, b.minor) || cmpBig(a.patch, b.patch);
  if (core !== 0) return core;
  // A release outranks its prereleases ...
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    if (a.prerelease.length !== b.prerelease.length) return a.prerelease.length === 0 ? 1 : -1;
  } else {
    const pre = compareLists(a.prerelease, b.prerelease);
    if (pre !== 0) return pre;
  }
  // ... but a version with build metadata outranks the same version without any.
  if (a.build.length === 0 || b.build.length === 0) {
    return a.build.length === b.build.length ? 0 : a.build.length === 0 ? -1 : 1;
  }
  return compareLists(a.build, b.build);
}

function toParsed(v: string | ParsedVersion): ParsedVersion {
  if (typeof v !== 'string') return v;
  const r = parseRelaxed(v);
  if (!r.ok) throw new DevpkgError(`"${v}" is not a semver version kapp-controller can select: ${r.error}`);
  return r.version;
}

/**
 * Orders two versions the way kapp-controller picks the highest one (build metadata counts).
 * Strings are parsed like vendir does (a leading `v` is dropped); an unparsable one throws.
 */
export function compareVersions(a: string | ParsedVersion, b: string | ParsedVersion): number {
  return compareParsed(toParsed(a), toParsed(b));
}

/** The canonical text (no `v`): what carvel semver's Version.String prints. */
export function formatVersion(v: ParsedVersion): string {
  let s = `${v.major}.${v.minor}.${v.patch}`;
  if (v.prerelease.length > 0) s += '-' + v.prerelease.map((p) => (p.num !== undefined ? p.num.toString() : p.str)).join('.');
  if (v.build.length > 0) s += '+' + v.build.map((p) => p.str).join('.');
  return s;
}

export function isPrerelease(v: ParsedVersion): boolean {
  return v.prerelease.length > 0;
}

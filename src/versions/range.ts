import { DevpkgError } from '../errors.js';
import { compareParsed, parseRelaxed, parseStrict, type ParsedVersion } from './semver.js';

/**
 * blang-style version ranges exactly as carvel semver v4 (k14s/semver@266d47a =
 * carvel-dev/semver@8090ce4, used by kapp-controller v0.30–v0.53) evaluates them, quirks
 * included (see the tests):
 * - terms are split on spaces, except a space right after `<`, `>` or `=`; a one-character
 *   term is silently dropped;
 * - only a lowercase `x` is a wildcard (`X` and `*` are parse errors); any term containing an
 *   `x` anywhere, even in a prerelease, goes through wildcard expansion, and `1.x.x` means
 *   `>=1.0.0 <1.1.0`;
 * - comparisons use the full version order, build metadata included, so `<2.0.0` admits
 *   `2.0.0-rc.1` and `=1.0.0` does not match `1.0.0+build`.
 */

export type Operator = '=' | '!=' | '>' | '>=' | '<' | '<=';

export interface Comparator {
  /** The term after wildcard expansion, e.g. `>=1.2.0`. */
  readonly text: string;
  readonly op: Operator;
  readonly version: ParsedVersion;
}

export interface Constraint {
  /** The constraint as written. */
  readonly text: string;
  /** OR of ANDs. */
  readonly alternatives: readonly (readonly Comparator[])[];
}

const OPERATORS: Record<string, Operator> = {
  '': '=',
  '=': '=',
  '==': '=',
  '!': '!=',
  '!=': '!=',
  '>': '>',
  '>=': '>=',
  '<': '<',
  '<=': '<=',
};

class RangeError_ extends Error {}

// Splits on spaces on the UTF-8 bytes, as the Go code does (it matters for the dropping of
// one-byte terms).
function splitAndTrim(s: string): string[] {
  const bytes = Buffer.from(s, 'utf8');
  const out: string[] = [];
  let last = 0;
  let lastChar = 0;
  const keepTogether = new Set([0x3e, 0x3c, 0x3d]); // > < =
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x20 && !keepTogether.has(lastChar)) {
      if (last < i - 1) out.push(bytes.subarray(last, i).toString('utf8'));
      last = i + 1;
    } else if (bytes[i] !== 0x20) {
      lastChar = bytes[i];
    }
  }
  if (last < bytes.length - 1) out.push(bytes.subarray(last).toString('utf8'));
  return out.map((t) => t.replaceAll(' ', ''));
}

function splitOrParts(parts: string[]): string[][] {
  const out: string[][] = [];
  let last = 0;
  parts.forEach((p, i) => {
    if (p !== '||') return;
    if (i === 0) throw new RangeError_(`First element in range is '||'`);
    out.push(parts.slice(last, i));
    last = i + 1;
  });
  if (last === parts.length) throw new RangeError_(`Last element in range is '||'`);
  out.push(parts.slice(last));
  return out;
}

// Go's strings.TrimSpace
const GO_TRIM = /^[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+|[\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+$/g;

function splitComparatorVersion(s: string): [string, string] {
  const i = s.search(/\p{Nd}/u); // unicode.IsDigit
  if (i < 0) throw new RangeError_(`Could not get version from string: "${s}"`);
  return [s.slice(0, i).replace(GO_TRIM, ''), s.slice(i)];
}

// Go's strconv.Atoi on a 64-bit platform.
function goAtoi(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > (1n << 63n) - 1n || n < -(1n << 63n) ? undefined : n;
}

function incrementPart(v: string, index: number): string {
  const parts = v.split('.');
  const n = goAtoi(parts[index]);
  if (n === undefined) return ''; // the Go code ignores this error; the term then fails to parse
  parts[index] = (n + 1n).toString();
  return parts.join('.');
}

function expandWildcard(term: string): string[] {
  if (!term.includes('x')) return [term];
  const [op, vStr] = splitComparatorVersion(term);
  const parts = vStr.split('.');
  const kind = parts[parts.length - 1] === 'x' ? parts.length : 0; // 2: minor, 3: patch wildcard
  let flat = vStr.replace('.x.x', '.x').replace('.x', '.0');
  if (flat.split('.').length === 2) flat += '.0';

  const out: string[] = [];
  let resultOp = '';
  let increment = false;
  switch (op) {
    case '>':
      resultOp = '>=';
      increment = true;
      break;
    case '>=':
      resultOp = '>=';
      break;
    case '<':
      resultOp = '<';
      break;
    case '<=':
      resultOp = '<';
      increment = true;
      break;
    case '':
    case '=':
    case '==':
      out.push(`>=${flat}`);
      resultOp = '<';
      increment = true;
      break;
    case '!=':
    case '!':
      out.push(`<${flat}`);
      resultOp = '>=';
      increment = true;
      break;
    default:
      // An unknown operator is dropped here (so `~1.2.x` means `=1.2.0`), as in the Go code.
      break;
  }
  let resultVersion = flat;
  if (increment) resultVersion = kind === 3 ? incrementPart(flat, 1) : kind === 2 ? incrementPart(flat, 0) : '';
  out.push(resultOp + resultVersion);
  return out;
}

function buildComparator(term: string): Comparator {
  const [opStr, vStr] = splitComparatorVersion(term);
  const op = OPERATORS[opStr];
  if (op === undefined) {
    throw new RangeError_(`Could not parse Range "${term}": Could not parse comparator "${opStr}" in "${opStr}${vStr}"`);
  }
  const r = parseStrict(vStr);
  if (!r.ok) throw new RangeError_(`Could not parse Range "${term}": Could not parse version "${vStr}" in "${opStr}${vStr}": ${r.error}`);
  return { text: term, op, version: r.version };
}

/**
 * Parses a version constraint such as `>=1.0.0 <2.0.0 || 3.x`. Throws a DevpkgError naming the
 * constraint, with carvel semver's own reason (what kapp-controller would report).
 */
export function parseConstraints(text: string): Constraint {
  try {
    const orParts = splitOrParts(splitAndTrim(text));
    // All wildcards are expanded before any term is parsed, so errors come in the Go order.
    const expanded = orParts.map((terms) => terms.flatMap(expandWildcard));
    const alternatives = expanded.map((terms) => terms.map(buildComparator));
    if (alternatives.some((a) => a.length === 0)) {
      // The Go code returns a Range that calls a nil function here (a controller panic).
      throw new RangeError_(`an empty alternative between '||' operators`);
    }
    return { text, alternatives };
  } catch (err) {
    if (!(err instanceof RangeError_)) throw err;
    const hint = text.trim() === '' ? ' (it is empty)' : '';
    throw new DevpkgError(
      `cannot parse version constraint "${text}"${hint}: ${err.message}. ` +
        'Write space-separated terms such as ">=1.0.0 <2.0.0", alternatives with "||", full MAJOR.MINOR.PATCH versions, or a lowercase x wildcard ("1.2.x")',
    );
  }
}

function holds(c: Comparator, v: ParsedVersion): boolean {
  const cmp = compareParsed(v, c.version);
  switch (c.op) {
    case '=':
      return cmp === 0;
    case '!=':
      return cmp !== 0;
    case '>':
      return cmp > 0;
    case '>=':
      return cmp >= 0;
    case '<':
      return cmp < 0;
    case '<=':
      return cmp <= 0;
  }
}

/**
 * Whether a version satisfies a constraint. Strings are parsed like vendir does (leading `v`
 * dropped); a string that does not parse satisfies nothing.
 */
export function satisfies(version: string | ParsedVersion, constraint: string | Constraint): boolean {
  const c = typeof constraint === 'string' ? parseConstraints(constraint) : constraint;
  let v: ParsedVersion;
  if (typeof version === 'string') {
    const r = parseRelaxed(version);
    if (!r.ok) return false;
    v = r.version;
  } else {
    v = version;
  }
  return c.alternatives.some((and) => and.every((cmp) => holds(cmp, v)));
}

/** The versions a constraint allows when it allows only exact versions (`1.2.3`, `=1.2.3 || ==1.3.0`). */
export function exactVersionsOf(c: Constraint): ParsedVersion[] | undefined {
  if (!c.alternatives.every((a) => a.length === 1 && a[0].op === '=')) return undefined;
  return c.alternatives.map((a) => a[0].version);
}

/**
 * Values checked where they enter: one pure parse function per kind of value, shared by the CLI
 * flags and the action inputs. Each returns a typed value or throws a UsageError (exit 2) that
 * names the flag or input (`what`, e.g. "--timeout" or "input timeout") and says what to give.
 */
import { parseRepository, parseImageTag, type Registry, type Repository } from './bundle/reference.js';
import { UsageError, errorMessage } from './errors.js';
import { parseStrict } from './versions/semver.js';

/** The longest wait devpkg accepts (Node's timers overflow past ~24.8 days; no run needs a day). */
export const MAX_DURATION_MS = 24 * 3600_000;

/** `10m`, `90s`, `1500ms`: a limit written as the inputs and flags take it (parseDuration's inverse for whole units). */
export function formatDuration(ms: number): string {
  if (ms > 0 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** Parses durations such as "90", "90s", "5m", "1h30m" into milliseconds, at most 24h. */
export function parseDuration(text: string, what: string): number {
  const t = text.trim();
  if (/^-/.test(t)) {
    throw new UsageError(`${what}: "${text}" is negative; give a duration such as 90s, 5m or 1h`);
  }
  let total: number;
  if (/^\d+$/.test(t)) {
    total = Number(t) * 1000;
  } else {
    const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
    total = 0;
    let matched = 0;
    for (let m = re.exec(t); m; m = re.exec(t)) {
      const n = Number(m[1]);
      total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60000 : n * 3600000;
      matched = re.lastIndex;
    }
    if (matched !== t.length || t.length === 0) {
      throw new UsageError(`${what}: "${text}" is not a duration; use e.g. 90s, 5m or 1h`);
    }
  }
  if (!(total <= MAX_DURATION_MS)) {
    throw new UsageError(`${what}: "${text}" is longer than 24h, the longest devpkg waits; use e.g. 10m or 2h`);
  }
  return total;
}

export interface Waits {
  settleMs: number;
  timeoutMs: number;
}

/** The push command's limit (input push-timeout, --push-timeout): above zero. */
export function parsePushTimeout(text: string, what: string): number {
  const ms = parseDuration(text, what);
  if (ms <= 0) throw new UsageError(`${what}: "${text}" is zero; give how long the push command may run, e.g. 10m`);
  return ms;
}

/**
 * The settle window and the time-out of a verification, checked together: the time-out must be
 * above zero and not shorter than the settle window (a win has to be able to hold inside it).
 */
export function parseWaits(
  values: { settle?: string; timeout?: string },
  names: { settle: string; timeout: string },
  defaults = { settle: '60s', timeout: '10m' },
): Waits {
  const settle = values.settle?.trim() || defaults.settle;
  const timeout = values.timeout?.trim() || defaults.timeout;
  const settleMs = parseDuration(settle, names.settle);
  const timeoutMs = parseDuration(timeout, names.timeout);
  if (timeoutMs <= 0) throw new UsageError(`${names.timeout}: "${timeout}" is zero; give how long to wait, e.g. 10m`);
  if (settleMs > timeoutMs) {
    throw new UsageError(
      `${names.settle} ${settle} is longer than ${names.timeout} ${timeout}; a win must be able to hold for the settle window ` +
        `within the time-out: shorten ${names.settle} or lengthen ${names.timeout}`,
    );
  }
  return { settleMs, timeoutMs };
}

/** A Package version as kapp-controller reads it: strict semver, no leading "v". */
export function parseVersionFlag(text: string, what: string): string {
  const t = text.trim();
  if (t === '') throw new UsageError(`${what} is empty; give a semver version such as 1.5.4-dev.1`);
  if (/^v\d/.test(t) && parseStrict(t.slice(1), t).ok) {
    throw new UsageError(`${what}: "${text}" starts with "v"; Package versions are strict semver: write ${t.slice(1)}`);
  }
  const r = parseStrict(t, t);
  if (!r.ok) {
    throw new UsageError(`${what}: "${text}" is not a semver version (MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], e.g. 1.5.4-dev.1); kapp-controller ignores versions that do not parse`);
  }
  return t;
}

const HOST_RE = /^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)(?::\d{1,5})?$/;

/** What is wrong with the characters of a reference, or undefined (for messages). */
function badCharacters(text: string): string | undefined {
  const bad = [...new Set(text.replace(/[A-Za-z0-9._:/@+[\]-]/g, '').split(''))];
  if (bad.length === 0) return undefined;
  return bad.map((c) => (c === ' ' ? 'a space' : /\s/.test(c) ? 'whitespace' : `"${c}"`)).join(', ');
}

/**
 * A registry (HOST[:PORT][/PATH], no scheme, no tag): where dev bundles are pushed (--registry,
 * input registry; the package's `<name>-bundle` is appended) or where the cluster pulls them from
 * (--cluster-registry, input cluster-registry). The one parser of registry text: what it returns
 * is passed on typed.
 */
export function parseRegistry(text: string, what: string, example = 'localhost:5001/devpkg'): Registry {
  const t = text.trim().replace(/\/+$/, '');
  if (t === '') throw new UsageError(`${what} is empty; give HOST[:PORT][/PATH], e.g. ${example}`);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(t);
  if (scheme) {
    throw new UsageError(`${what}: "${text}" has a scheme (${scheme[1]}://); write the registry as HOST[:PORT][/PATH], e.g. ${example}`);
  }
  const bad = badCharacters(t);
  if (bad) {
    throw new UsageError(`${what}: "${text}" is not a registry: it contains ${bad}; write HOST[:PORT][/PATH], e.g. ${example}`);
  }
  const slash = t.indexOf('/');
  const host = slash < 0 ? t : t.slice(0, slash);
  if (!HOST_RE.test(host) || !(host === 'localhost' || host.includes('.') || host.includes(':') || host.startsWith('['))) {
    throw new UsageError(
      `${what}: "${text}" does not start with a registry host (a name with a dot or a port, or localhost); write HOST[:PORT][/PATH], e.g. ${example}`,
    );
  }
  if (slash < 0) return { host, path: '' };
  try {
    return { host, path: parseRepository(t).path };
  } catch (err) {
    throw new UsageError(`${what}: ${errorMessage(err)}`);
  }
}

/** An image to push to, REPO:TAG; says which characters are wrong before anything else. */
export function parseImageFlag(text: string, what: string): { repository: Repository; tag: string } {
  const t = text.trim();
  const bad = badCharacters(t);
  if (bad) {
    throw new UsageError(
      `${what}: "${text}" is not an image reference: it contains ${bad}; write HOST[:PORT]/PATH:TAG with lowercase letters, ` +
        'digits, ".", "_" and "-" in the path, e.g. localhost:5001/devpkg/antrea:1.2.3_dev.1',
    );
  }
  try {
    return parseImageTag(t);
  } catch (err) {
    throw new UsageError(`${what}: ${errorMessage(err)}`);
  }
}

/**
 * A list, as both the action's inputs and the CLI's flags take one (packages, ignore): items
 * separated by commas or newlines, each trimmed; empty items and `#` comment lines are dropped.
 */
export function parseList(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .flatMap((line) => line.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** `--packages` / input `packages`: a list (parseList) of NAME/VERSION, e.g. antrea/1.5.3. */
export function parsePackageList(text: string, what: string): string[] {
  const packages = parseList(text);
  for (const p of packages) {
    if (!/^[^/\s]+\/[^/\s]+$/.test(p)) throw new UsageError(`${what}: "${p}" is not NAME/VERSION (e.g. antrea/1.5.3)`);
  }
  return packages;
}

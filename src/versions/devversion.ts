import { DevpkgError } from '../errors.js';
import { exactVersionsOf, parseConstraints } from './range.js';
import { effectiveSelection, selectVersion, type VersionSelection } from './select.js';
import { compareParsed, formatVersion, parseStrict, parseVersion, type ParsedVersion } from './semver.js';

/** What makes dev versions rise from run to run (kapp-controller's downgrade guard). */
export type DevSequence = { runNumber: number; runAttempt: number } | { timestamp: Date };

export interface DevVersionPlan {
  /** Strict semver for Package.spec.version (no `v`). */
  version: string;
  /** The OCI tag for the bundle (`+` becomes `_`). */
  tag: string;
  reason: string;
}

/** The versionSelection of one PackageInstall, named for messages (e.g. `PackageInstall ns/name`). */
export interface LabeledSelection {
  label: string;
  selection?: VersionSelection;
}

export interface PlanDevVersionOptions {
  /** Versions in play for the refName: the repository's, and the cluster's when known (earlier dev versions included). */
  versions: string[];
  /** The PackageInstall's versionSelection. */
  selection?: VersionSelection;
  /**
   * Several PackageInstalls of the refName, each with its own versionSelection (instead of
   * `selection`): the dev version must win under every one of them.
   */
  selections?: LabeledSelection[];
  /** The repository version being changed (counted as in play). */
  base?: string;
  seq: DevSequence;
}

const OCI_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** The OCI tag for a version: `+` (not allowed in tags) becomes `_`. Throws when no valid tag results. */
export function toOciTag(version: string): string {
  const tag = version.replaceAll('+', '_');
  if (!OCI_TAG.test(tag)) {
    const why = tag.length > 128 ? `it is ${tag.length} characters long (at most 128)` : 'tags allow only [A-Za-z0-9_.-], not starting with . or -';
    throw new DevpkgError(`version "${version}" cannot be an OCI tag ("${tag}"): ${why}`);
  }
  return tag;
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/** The numeric identifiers that rise with each run: `<runNumber>.<runAttempt>` or a UTC `yyyymmddhhmmss`. */
export function sequenceIdentifiers(seq: DevSequence): string[] {
  if ('timestamp' in seq) {
    const t = seq.timestamp;
    if (Number.isNaN(t.getTime())) throw new DevpkgError('dev version timestamp is not a valid date');
    return [
      `${t.getUTCFullYear()}${pad(t.getUTCMonth() + 1)}${pad(t.getUTCDate())}${pad(t.getUTCHours())}${pad(t.getUTCMinutes())}${pad(t.getUTCSeconds())}`,
    ];
  }
  const { runNumber, runAttempt } = seq;
  if (!Number.isSafeInteger(runNumber) || runNumber < 0 || !Number.isSafeInteger(runAttempt) || runAttempt < 0) {
    throw new DevpkgError(`run number ${runNumber} and run attempt ${runAttempt} must be non-negative integers`);
  }
  // Two numeric identifiers rather than runNumber*100+runAttempt: numeric identifiers compare by
  // value left to right, so this rises with every run and attempt without any overflow.
  return [String(runNumber), String(runAttempt)];
}

function isDevLooking(v: ParsedVersion): boolean {
  return v.prerelease.some((p) => p.str === 'dev') || v.build.some((p) => p.str === 'dev');
}

function validPrereleaseIdentifier(id: string): boolean {
  return parseStrict(`0.0.0-${id}`).ok && !id.includes('.');
}

function highest(vs: ParsedVersion[]): ParsedVersion | undefined {
  let best: ParsedVersion | undefined;
  for (const v of vs) if (!best || compareParsed(v, best) >= 0) best = v;
  return best;
}

/**
 * Chooses the dev version for a changed package: one that kapp-controller will select over
 * every version in play under the PackageInstall's versionSelection, that rises with each run,
 * and that is strict semver with a valid OCI tag. Preference, for each base (the version
 * kapp-controller selects now, ignoring earlier dev versions first):
 *   1. `<next patch>-dev.<seq>` when the selection lets prereleases through (with
 *      `identifiers` that lack `dev`: `<next patch>-<identifier>.dev.<seq>`);
 *   2. `<next patch>+dev.<seq>` — a release (so it passes a missing prereleases setting) whose
 *      build metadata makes it rise;
 *   3. `<base>+<base build>.dev.<seq>` — same core, longer build list (for tight upper bounds).
 * When nothing in play is selectable, the constraints' lower bounds serve as bases too.
 * Every candidate is checked with selectVersion itself. Throws a DevpkgError saying why and what
 * to change when none can win (e.g. constraints that pin one exact version).
 */
export function planDevVersion(opts: PlanDevVersionOptions): DevVersionPlan {
  const seq = sequenceIdentifiers(opts.seq).join('.');
  const sels = distinctSelections(opts);
  const pool = [...opts.versions];
  if (opts.base !== undefined && !pool.includes(opts.base)) pool.push(opts.base);

  const parsedPool = pool.flatMap((v) => parseVersion(v) ?? []);
  const released = parsedPool.filter((v) => !isDevLooking(v));
  const parseOpt = (v: string | undefined) => (v === undefined ? undefined : parseVersion(v));
  // Per selection: what kapp-controller selects now (throws on unparsable constraints).
  const under = sels.map((l) => {
    const selection = l.selection ?? {};
    const now = selectVersion(pool, selection);
    return { label: l.label, selection, effective: effectiveSelection(selection), winnerNow: parseOpt(now.selected) };
  });

  const bases: ParsedVersion[] = [];
  const addBase = (v: ParsedVersion | undefined) => {
    if (v && !bases.some((b) => compareParsed(b, v) === 0)) bases.push(v);
  };
  for (const u of under) {
    addBase(parseOpt(selectVersion(released.map((v) => v.original), u.selection).selected));
    addBase(u.winnerNow);
  }
  addBase(parseOpt(opts.base));
  addBase(highest(released));
  addBase(highest(parsedPool));
  for (const u of under) {
    if (!u.winnerNow && u.selection.constraints) {
      // Nothing in play is selectable: start from the constraints' own lower bounds.
      for (const alt of parseConstraints(u.selection.constraints).alternatives) {
        for (const c of alt) if (c.op === '>=' || c.op === '>' || c.op === '=') addBase(c.version);
      }
    }
  }
  if (under.some((u) => !u.winnerNow)) addBase(parseVersion('0.0.0'));

  const nextPatch = (b: ParsedVersion) => `${b.major}.${b.minor}.${b.patch + 1n}`;
  const forms: Array<(b: ParsedVersion) => string[]> = [];
  const preIds = [...new Set(under.flatMap((u) => {
    const pre = u.effective.prereleases;
    if (pre == null) return [];
    const ids = pre.identifiers ?? [];
    return ids.length === 0 || ids.includes('dev') ? ['dev'] : ids.filter(validPrereleaseIdentifier).map((id) => `${id}.dev`);
  }))];
  if (preIds.length) forms.push((b) => preIds.map((p) => `${nextPatch(b)}-${p}.${seq}`));
  forms.push((b) => [`${nextPatch(b)}+dev.${seq}`]);
  forms.push((b) => [b.build.length > 0 ? `${formatVersion(b)}.dev.${seq}` : `${formatVersion(b)}+dev.${seq}`]);

  const several = under.length > 1;
  const tried: string[] = [];
  const seen = new Set<string>();
  for (const form of forms) {
    for (const b of bases) {
      for (const cand of form(b)) {
        if (seen.has(cand)) continue;
        seen.add(cand);
        const why = under.flatMap((u) => {
          const r = rejection(cand, pool, u.selection, u.winnerNow);
          return r === undefined ? [] : [several ? `${u.label}: ${r}` : r];
        });
        if (why.length === 0) {
          const rises = `it rises with ${'timestamp' in opts.seq ? 'the UTC time' : 'the run number and attempt'}`;
          return { version: cand, tag: toOciTag(cand), reason: `${cand} ${winsUnder(under)}; ${rises}` };
        }
        tried.push(`${cand} (${why.join('; ')})`);
      }
    }
  }
  if (several) {
    // One selection no dev version can pass is said on its own, naming its PackageInstall.
    for (const u of under) {
      try {
        planDevVersion({ ...opts, selection: u.selection, selections: undefined });
      } catch (err) {
        throw new DevpkgError(`${u.label}: ${(err as Error).message}`);
      }
    }
    throw new DevpkgError(
      `no dev version wins under every versionSelection of the ${under.length} PackageInstalls of this refName ` +
        `(${under.map((u) => `${u.label}: ${describe(u.effective)}`).join('; ')}); tried ${tried.join('; ')}. ` +
        'Make their versionSelections agree, or name the one to move with --package-install NS/NAME (input package-install)',
    );
  }
  throw new DevpkgError(noWinnerMessage(under[0]!.selection, under[0]!.winnerNow, tried));
}

/** The selections to plan against, each once (identical ones add nothing). */
function distinctSelections(opts: PlanDevVersionOptions): LabeledSelection[] {
  const given = opts.selections?.length ? opts.selections : [{ label: 'the PackageInstall', selection: opts.selection }];
  const byKey = new Map<string, LabeledSelection>();
  for (const l of given) {
    const key = JSON.stringify(effectiveSelection(l.selection ?? {}));
    const had = byKey.get(key);
    byKey.set(key, had ? { ...had, label: `${had.label}, ${l.label}` } : l);
  }
  return [...byKey.values()];
}

/** "outranks X, the version kapp-controller selects now (versionSelection: ...)", per selection. */
function winsUnder(under: Array<{ label: string; effective: VersionSelection; winnerNow?: ParsedVersion }>): string {
  const one = (u: (typeof under)[number]) =>
    `${u.winnerNow ? `outranks ${u.winnerNow.original}, the version kapp-controller selects now` : 'is the only version kapp-controller can select (none in play is selectable now)'} (versionSelection: ${describe(u.effective)})`;
  if (under.length === 1) return one(under[0]!);
  return `wins under each PackageInstall's versionSelection: ${under.map((u) => `${u.label} ${one(u)}`).join('; ')}`;
}

function describe(sel: VersionSelection): string {
  const pre = sel.prereleases;
  const preText = pre == null ? 'not set' : pre.identifiers?.length ? `identifiers [${pre.identifiers.join(', ')}]` : '{} (all)';
  return `constraints ${sel.constraints ? `"${sel.constraints}"` : 'none'}, prereleases ${preText}`;
}

function rejection(cand: string, pool: string[], selection: VersionSelection, winnerNow: ParsedVersion | undefined): string | undefined {
  const strict = parseStrict(cand);
  if (!strict.ok) return `not strict semver: ${strict.error}`;
  try {
    toOciTag(cand);
  } catch (err) {
    return (err as Error).message;
  }
  const result = selectVersion([...pool, cand], selection);
  const mine = result.considered[result.considered.length - 1];
  if (result.selected !== cand) return mine.reason;
  if (winnerNow && compareParsed(strict.version, winnerNow) <= 0 && formatVersion(winnerNow) !== cand) {
    return `same precedence as ${winnerNow.original}; kapp-controller's choice would depend on list order`;
  }
  return undefined;
}

function noWinnerMessage(selection: VersionSelection, winnerNow: ParsedVersion | undefined, tried: string[]): string {
  const constraints = selection.constraints ? parseConstraints(selection.constraints) : undefined;
  const exact = constraints ? exactVersionsOf(constraints) : undefined;
  if (constraints && exact) {
    const list = exact.map(formatVersion).join(', ');
    return (
      `versionSelection.constraints "${constraints.text}" allows only ${exact.length === 1 ? 'the exact version' : 'the exact versions'} ${list}, ` +
      'so no dev version can be selected. Change the PackageInstall\'s versionSelection.constraints to a range ' +
      `(e.g. ">=${formatVersion(exact[0])}") or remove them (on TKG 2.x the ClusterBootstrap pins exact versions, and a dev version cannot win there)`
    );
  }
  const against = winnerNow ? `outranks ${winnerNow.original}` : 'kapp-controller selects';
  return (
    `no dev version that ${against} passes versionSelection (${describe(selection)}); tried ${tried.join('; ')}. ` +
    'Widen versionSelection.constraints (or set versionSelection.prereleases: {}) on the PackageInstall, or give the dev version yourself'
  );
}

/**
 * Results: what a run says about each package version, and the words for it (verdict, mode,
 * phase, timeline). The report, the modes and the verifier all depend on this module, and it
 * depends on nothing of theirs. Keep the shape stable: the results folder is read by other jobs.
 */
import type { Problem } from './packages/problems.js';

/** The modes of the action, once (inputs.ts validates the input against this list). */
export const MODES = ['plan', 'detect', 'kind', 'cluster', 'bootstrap', 'report'] as const;
export type Mode = (typeof MODES)[number];

/** A package version in the repository (name, version folder name, and where the folder is). */
export interface PackageVersionRef {
  name: string;
  version: string;
  /** Repository-relative version folder, e.g. `addons/packages/antrea/1.2.3` (or the file or folder its layout keeps it in). */
  path: string;
  /** Which layout module read it (src/layouts/), e.g. tce, kctrl, repository. */
  layout?: string;
}

/** The verdicts, once (the report's reader refuses a results file naming any other). */
export const VERDICT_NAMES = ['won', 'not-selected', 'reconcile-failed', 'downgrade-blocked', 'timed-out', 'lost', 'interrupted', 'planned', 'error'] as const;
export type Verdict = (typeof VERDICT_NAMES)[number];

/** One change of a watched object, as seen by devpkg. */
export interface TimelineEntry {
  /** ISO timestamp of when devpkg saw the change. */
  at: string;
  object: 'PackageInstall' | 'App' | string;
  generation?: number;
  observedGeneration?: number;
  /** e.g. ReconcileSucceeded, Reconciling, ReconcileFailed, DeleteFailed. */
  condition?: string;
  version?: string;
  lastAttemptedVersion?: string;
  message?: string;
}

export interface Phase {
  name: string;
  startedAt?: string;
  seenAt?: string;
  /** What was seen when the phase was first complete (bootstrap: the objects that show it). */
  detail?: string;
}

/** One step of a run's step graph (src/pipeline/schedule.ts): when it ran and what it waited on. */
export interface StepRecord {
  name: string;
  state: 'done' | 'failed' | 'cancelled';
  needs: string[];
  startedAt?: string;
  finishedAt?: string;
  /**
   * What held its start back: the needed step that finished last, and `a free <pool> slot` when
   * it was ready but its pool was full. Empty: it started at once.
   */
  waitedOn: string[];
  /** The failure's message (state failed). */
  error?: string;
}

export interface AssertionResult {
  description: string;
  ok: boolean;
  detail: string;
}

export interface PackageResult {
  /** Package name (the repository folder), e.g. antrea. */
  name: string;
  /** The repository version folder, e.g. 1.5.3. */
  version: string;
  /** refName in the repository (absent, and listed in `unknown`, when the package could not be read). */
  refName?: string;
  /** refName in the cluster (after the ref-name map). */
  targetRefName?: string;
  releasedVersion?: string;
  /**
   * Where the plan's released version came from, when the layout had to work it out (kctrl:
   * released-version, a git tag, the cluster's Packages, or none: 0.0.0), in words.
   */
  releasedFrom?: string;
  /** Absent, and listed in `unknown`, when it could not be planned. */
  devVersion?: string;
  /** What this result cannot say because the run stopped before it was known. */
  unknown?: Array<'refName' | 'targetRefName' | 'devVersion'>;
  /** The dev bundle as repo@sha256:... */
  bundle?: string;
  mode: Mode;
  verdict: Verdict;
  /** One or a few sentences: why this verdict. */
  reason: string;
  phases?: Phase[];
  /** Kind mode: the run's steps (shared by every package of the run), as the step graph ran them. */
  steps?: StepRecord[];
  timeline: TimelineEntry[];
  diagnostics?: { dir: string; excerpt: string };
  assertions?: AssertionResult[];
  /** What is wrong in the package's files (warnings planned around; an error is verdict `error`). */
  problems?: Problem[];
}

/** Where a layout's released version came from, as data (the plan's JSON `releasedFrom`). */
export interface ReleasedOrigin {
  source: 'released-version' | 'tag' | 'cluster' | 'none';
  /** The git tag it was read from. */
  tag?: string;
  /** The commit the tag is reachable from (the base; without one, the commit read). */
  reachableFrom?: string;
}

/** The version a package repository's Package is installed as the upgrade from, and where it is. */
export interface UpgradeFrom {
  version: string;
  file: string;
  /** The tree it was read at (the base commit, or the working tree). */
  at: string;
}

/** A file of the plan's folder: the dev Package, the 04_user_customizations overlay, or a built bundle folder. */
export interface PlanFile {
  path: string;
  what: 'devPackage' | 'overlay' | 'bundle';
}

/** What plan mode works out for a package (also kept by the other modes). */
export interface PlanDetails {
  /** The repository folder of the version, relative to the repository root. */
  path: string;
  /** The layout that read it (src/layouts/). */
  layout?: string;
  /** How the layout was chosen, and the versions it worked out, in words. */
  notes?: string[];
  /** The version the plan treats as released (undefined: none, a first install). */
  released?: string;
  /** Where it came from, when the layout worked it out (kctrl). */
  releasedFrom?: ReleasedOrigin;
  /** A package repository's Package: the version it is installed as the upgrade from (null: a first install). */
  upgradeFrom?: UpgradeFrom | null;
  devPackageName: string;
  bundleTag: string;
  /** Where the bundle goes: repo:tag (the digest is known only after the push). */
  bundleImage: string;
  /** Why this dev version (from the version planner). */
  devVersionReason: string;
  packageYaml: string;
  overlay: string;
  overlayPath: string;
  /** The files the plan writes with --out, relative to its folder (NAME/VERSION/...). */
  files?: PlanFile[];
  /** The commands that take the version further, rendered for where they are run (pipeline/plan-commands.ts). */
  commands: string[];
}

export interface PlannedPackage extends PackageResult {
  plan?: PlanDetails;
}

/** The result of a package version that could not be read or planned. */
export function errorResult(ref: PackageVersionRef, problem: Problem, mode: Mode): PlannedPackage {
  return {
    name: ref.name,
    version: ref.version,
    unknown: ['refName', 'targetRefName', 'devVersion'],
    mode,
    verdict: 'error',
    reason: `${problem.path}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.message}`,
    timeline: [],
    problems: [problem],
  };
}

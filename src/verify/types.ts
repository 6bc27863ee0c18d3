/**
 * The result of verifying one package, shared with the report and bootstrap code.
 * Keep this shape stable: other parts of devpkg code against it.
 */
import type { Problem } from '../packages/problems.js';

export type Verdict =
  | 'won'
  | 'not-selected'
  | 'reconcile-failed'
  | 'downgrade-blocked'
  | 'timed-out'
  | 'lost'
  | 'interrupted'
  | 'planned'
  | 'error';

export type Mode = 'plan' | 'kind' | 'cluster' | 'bootstrap' | string;

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
  /** refName in the repository. */
  refName: string;
  /** refName in the cluster (after the ref-name map). */
  targetRefName: string;
  releasedVersion?: string;
  devVersion: string;
  /** The dev bundle as repo@sha256:... */
  bundle?: string;
  mode: Mode;
  verdict: Verdict;
  /** One or a few sentences: why this verdict. */
  reason: string;
  phases?: Phase[];
  timeline: TimelineEntry[];
  diagnostics?: { dir: string; excerpt: string };
  assertions?: AssertionResult[];
  /** What is wrong in the package's files (warnings planned around; an error is verdict `error`). */
  problems?: Problem[];
}

/** What plan mode works out for a package (also kept by the other modes). */
export interface PlanDetails {
  /** The repository folder of the version, relative to the repository root. */
  path: string;
  devPackageName: string;
  bundleTag: string;
  /** Where the bundle goes: repo:tag (the digest is known only after the push). */
  bundleImage: string;
  /** Why this dev version (from the version planner). */
  devVersionReason: string;
  packageYaml: string;
  overlay: string;
  overlayPath: string;
  /** The commands the manual ritual would take, for people reading the plan. */
  commands: string[];
}

export interface PlannedPackage extends PackageResult {
  plan?: PlanDetails;
}

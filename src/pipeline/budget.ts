/**
 * How long a job that runs devpkg can take, at most, from the limits devpkg applies inside it:
 * a workflow's `timeout-minutes` must be at least this, or GitHub kills the job while devpkg is
 * still within its own limits (and, in bootstrap mode, before the post step deleted the cluster).
 * Pure; the limits named here are the ones the code applies (each names where).
 * test/unit/workflows.test.ts checks every workflow that runs devpkg against it.
 */

/** Limits devpkg applies on its own (not set by inputs). */
export const FIXED_LIMITS_MS = {
  /** Checkout, npm-free action start, tool downloads: a margin, not a devpkg limit. */
  setup: 5 * 60_000,
  /** kind mode: `kind create cluster --wait 180s` (cluster/kind.ts). */
  kindCreate: 180_000,
  /** kind mode: kapp-controller's rollout (300s) and its aggregated API (180s) (cluster/kind.ts). */
  kappController: 480_000,
  /** kind mode's post step: `kind delete cluster` and the registry container (typically well under this). */
  kindCleanup: 2 * 60_000,
  /** bootstrap: `tanzu management-cluster create --dry-run`, to populate the providers and to check them (tools/tanzu.ts), 10m each. */
  dryRuns: 2 * 10 * 60_000,
  /** bootstrap's post step: `tanzu management-cluster delete` (bootstrap/cleanup.ts). */
  managementClusterDelete: 30 * 60_000,
} as const;

export interface BudgetInputs {
  mode: string;
  /** The `timeout` input: each wait for a version (baseline, dev; bootstrap: phase 3, verdict). */
  timeoutMs: number;
  settleMs: number;
  /** bootstrap mode: `bootstrap-timeout`. */
  bootstrapTimeoutMs?: number;
  /** kind/cluster mode: how many package versions one job verifies one after the other (default 1). */
  packages?: number;
  /** With a push-command: its limit (push-timeout), for each push (kind: the baseline's and the dev bundle's). */
  pushTimeoutMs?: number;
}

export interface Budget {
  ms: number;
  /** Whole minutes, rounded up: the least `timeout-minutes` that fits. */
  minutes: number;
  parts: { what: string; ms: number }[];
}

/** Pure: the longest a job running devpkg in `mode` takes within devpkg's own limits. */
export function jobBudget(i: BudgetInputs): Budget {
  const f = FIXED_LIMITS_MS;
  const n = Math.max(1, i.packages ?? 1);
  const parts: Budget['parts'] = [{ what: 'setup margin', ms: f.setup }];
  if (i.mode === 'kind') parts.push({ what: 'kind create', ms: f.kindCreate }, { what: 'kapp-controller install', ms: f.kappController });
  if (i.mode === 'kind') parts.push({ what: `baseline wait (timeout) x${n}`, ms: n * i.timeoutMs });
  if (i.mode === 'kind' || i.mode === 'cluster') parts.push({ what: `dev version wait (timeout) + settle x${n}`, ms: n * (i.timeoutMs + i.settleMs) });
  if (i.pushTimeoutMs !== undefined && i.mode !== 'plan' && i.mode !== 'detect' && i.mode !== 'report') {
    const pushes = i.mode === 'kind' ? 2 * n : i.mode === 'cluster' ? n : 1;
    parts.push({ what: `push command (push-timeout) x${pushes}`, ms: pushes * i.pushTimeoutMs });
  }
  if (i.mode === 'kind') parts.push({ what: 'kind cleanup (post step)', ms: f.kindCleanup });
  if (i.mode === 'bootstrap') {
    parts.push(
      { what: 'dry-runs', ms: f.dryRuns },
      { what: 'management-cluster create (bootstrap-timeout)', ms: i.bootstrapTimeoutMs ?? 45 * 60_000 },
      { what: 'phase 3 wait (timeout)', ms: i.timeoutMs },
      { what: 'verdict wait (timeout) + settle', ms: i.timeoutMs + i.settleMs },
      { what: 'management-cluster delete (post step)', ms: f.managementClusterDelete },
    );
  }
  // plan, detect, report: no cluster and no waits.
  const ms = parts.reduce((a, p) => a + p.ms, 0);
  return { ms, minutes: Math.ceil(ms / 60_000), parts };
}

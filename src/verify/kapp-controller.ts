/**
 * kapp-controller itself, as the verifier sees it, pure: whether a kapp-controller pod is ready,
 * when it went away (its pod deleted, or no longer ready) and when it came back. While it is away
 * nothing reconciles; an attempt it had begun before it went away may end ReconcileFailed only
 * because its process was stopped (kapp deploy killed mid-way), so such a failure is not a verdict:
 * the verifier waits for the attempt kapp-controller makes when it is back.
 */
import { appFailureStep, timeOf } from './app-status.js';
import type { KObject } from './kobject.js';

/** Where kapp-controller runs when nobody says: its release manifest, TKG/TCE, other installs. */
export const KAPP_CONTROLLER_NAMESPACES = ['kapp-controller', 'tkg-system', 'kube-system'];

/** A time kapp-controller had no ready pod: from (ms since the epoch) to (absent while it lasts). */
export interface Outage {
  from: number;
  to?: number;
  /** What happened, e.g. "pod kapp-controller/kapp-controller-5d9f-abcde was deleted". */
  what: string;
}

export interface KappControllerState {
  /** Ready kapp-controller pods (namespace/name) as last seen. */
  ready: string[];
  /** True once a ready pod was seen: only then does "none ready" mean it went away. */
  seenReady: boolean;
  outages: Outage[];
}

export interface KappControllerNote {
  at: number;
  message: string;
}

export function initialKappController(): KappControllerState {
  return { ready: [], seenReady: false, outages: [] };
}

const key = (p: KObject): string => `${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`;

/** kapp-controller's pods among `pods` (by name, as its Deployment names them). */
export function kappControllerPods(pods: KObject[]): KObject[] {
  return pods.filter((p) => String(p.metadata?.name ?? '').startsWith('kapp-controller'));
}

/** Running, Ready and not being deleted. */
export function podReady(p: KObject): boolean {
  if (p.metadata?.deletionTimestamp) return false;
  const conds = (p.status?.conditions ?? []) as Array<{ type?: string; status?: string }>;
  return p.status?.phase === 'Running' && conds.some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * Why a pod is not ready, from its own status, in a few words: the containers that are not ready
 * and their state (waiting or terminated, with the reason and exit code; restarts), else the
 * Ready condition's reason or the phase. Empty when the status says nothing.
 */
export function notReadyCause(p: KObject): string {
  const statuses = (p.status?.containerStatuses ?? []) as Array<{
    name?: string;
    ready?: boolean;
    restartCount?: number;
    state?: { waiting?: { reason?: string }; terminated?: { reason?: string; exitCode?: number }; running?: unknown };
  }>;
  const parts = statuses
    .filter((c) => c.ready === false)
    .map((c) => {
      const t = c.state?.terminated;
      const w = c.state?.waiting;
      const st = t
        ? `terminated${t.reason ? `: ${t.reason}` : ''}${t.exitCode !== undefined ? `, exit code ${t.exitCode}` : ''}`
        : w
          ? `waiting${w.reason ? `: ${w.reason}` : ''}`
          : c.state?.running
            ? 'running, not ready'
            : 'not ready';
      const restarts = c.restartCount ? `, restarted ${c.restartCount} time${c.restartCount === 1 ? '' : 's'}` : '';
      return `container ${c.name ?? '?'} ${st}${restarts}`;
    });
  if (parts.length > 0) return parts.join('; ');
  const conds = (p.status?.conditions ?? []) as Array<{ type?: string; status?: string; reason?: string }>;
  const readyCond = conds.find((c) => c.type === 'Ready');
  if (readyCond?.reason) return readyCond.reason;
  const phase = p.status?.phase;
  return phase && phase !== 'Running' ? `phase ${String(phase)}` : '';
}

/**
 * When the deletion of a pod was asked for (the API server's clock): its deletionTimestamp less
 * its grace period; undefined when it is not being deleted.
 */
export function deletionRequestedAt(p: KObject): number | undefined {
  const at = timeOf(p.metadata?.deletionTimestamp);
  if (at === undefined) return undefined;
  const grace = Number(p.metadata?.deletionGracePeriodSeconds ?? 0);
  return at - (Number.isFinite(grace) ? grace : 0) * 1000;
}

/**
 * The next state from the kapp-controller pods now seen (`pods`: every pod watched; others are
 * ignored), and what to say about the change, if anything. `now` is when devpkg saw it.
 */
export function onKappControllerPods(s: KappControllerState, pods: KObject[], now: number): { state: KappControllerState; note?: KappControllerNote } {
  const mine = kappControllerPods(pods);
  const ready = mine.filter(podReady).map(key).sort();
  const open = s.outages.length > 0 && s.outages[s.outages.length - 1]!.to === undefined;
  if (ready.length === 0 && s.seenReady && !open) {
    // It went away: the pods that were ready are being deleted, or gone, or no longer ready.
    const was = s.ready.map((k) => ({ k, pod: mine.find((p) => key(p) === k) }));
    const deleting = was.map((w) => ({ ...w, at: w.pod ? deletionRequestedAt(w.pod) : undefined })).find((w) => w.at !== undefined);
    const from = Math.min(deleting?.at ?? now, now);
    const first = was[0]?.k ?? '?';
    const stillThere = was.find((w) => w.pod);
    const cause = stillThere?.pod ? notReadyCause(stillThere.pod) : '';
    const what = deleting
      ? `pod ${deleting.k} was deleted`
      : stillThere
        ? `pod ${stillThere.k} is no longer ready${cause ? ` (${cause})` : ''}`
        : `pod ${first} is gone`;
    const outage: Outage = { from, what };
    return {
      state: { ready, seenReady: true, outages: [...s.outages, outage] },
      note: { at: now, message: `${what} (at ${new Date(from).toISOString()}); kapp-controller has no ready pod: nothing reconciles until it is back, devpkg waits` },
    };
  }
  if (ready.length > 0 && open) {
    const last = s.outages[s.outages.length - 1]!;
    const closed: Outage = { ...last, to: now };
    return {
      state: { ready, seenReady: true, outages: [...s.outages.slice(0, -1), closed] },
      note: {
        at: now,
        message: `back: pod ${ready.join(', ')} ready; kapp-controller was away from ${new Date(last.from).toISOString()} to ${new Date(now).toISOString()} (${last.what})`,
      },
    };
  }
  return { state: { ...s, ready, seenReady: s.seenReady || ready.length > 0 } };
}

/** The outage still going on, if any. */
export function openOutage(s: { outages: Outage[] } | undefined): Outage | undefined {
  const last = s?.outages[s.outages.length - 1];
  return last && last.to === undefined ? last : undefined;
}

/**
 * The outage that makes the App's last failure unreliable, if any: the attempt that failed began
 * (its fetch started) before kapp-controller went away, so its process may have been stopped in
 * the middle of it. Without the attempt's start, only an outage still going on counts.
 */
export function interruptedAttempt(app: KObject | undefined, outages: Outage[] | undefined): { outage: Outage; attempt?: number } | undefined {
  if (!outages?.length) return undefined;
  const attempt = timeOf(app?.status?.fetch?.startedAt);
  for (const outage of [...outages].reverse()) {
    if (attempt === undefined) {
      if (outage.to === undefined) return { outage };
      continue;
    }
    if (attempt <= outage.from) return { outage, attempt };
  }
  return undefined;
}

/**
 * Go's os/exec error when a child's exit status was collected by another wait (ECHILD). kapp-
 * controller's sidecarexec (v0.50.0 and v0.51.0 at least) runs a zombie reaper, `Wait4(-1)`,
 * beside its `cmd.Run` of vendir, imgpkg, ytt or kbld, and the reaper can take the status first.
 * The attempt then fails with, e.g., "Fetching resources: waitid: no child processes", whatever
 * the package holds. Fixed upstream by carvel-dev/kapp-controller#1806.
 */
const LOST_CHILD = /\bwait(?:id)?: no child processes\b/;

/**
 * How many attempts in a row may fail so before the failure is the verdict. kapp-controller tries
 * a failed App again after 2^n seconds (n = its consecutive failures, below the sync period), so
 * three cost about 2 + 4 + 8 seconds; a package that fails so every time is not kapp-controller
 * losing a race.
 */
export const LOST_CHILD_TRIES = 3;

export interface LostChild {
  /** The App's step that failed (fetch, template, deploy), or "reconcile" when no step says. */
  step: string;
  /** The message that shows it, as kapp-controller wrote it. */
  message: string;
  /** The App's consecutive failed attempts (status.consecutiveReconcileFailures), at least 1. */
  failures: number;
  /** When the failed attempt began (its fetch started, ms since the epoch), when the App says. */
  attempt?: number;
}

/**
 * The App's last attempt failed only because kapp-controller's sidecarexec lost its child's exit
 * status (LOST_CHILD), by evidence: the App is ReconcileFailed and the failing step's error, its
 * condition's message or its usefulErrorMessage carries Go's ECHILD error. Pure.
 */
export function lostChildAttempt(app: KObject | undefined): LostChild | undefined {
  const st = app?.status;
  const conds = (st?.conditions ?? []) as Array<{ type?: string; status?: string; message?: string }>;
  const failed = conds.find((c) => c.type === 'ReconcileFailed' && c.status === 'True');
  if (!failed) return undefined;
  // The step that failed in this attempt (not an earlier attempt's status), as the verdict reads it.
  const failing = appFailureStep(app);
  const texts: Array<[string, unknown]> = [
    ...(failing ? [[failing.step, failing.error], [failing.step, failing.text]] as Array<[string, unknown]> : []),
    ['reconcile', failed.message],
    ['reconcile', st?.usefulErrorMessage],
  ];
  const hit = texts.find(([, t]) => LOST_CHILD.test(String(t ?? '')));
  if (!hit) return undefined;
  const failures = Number(st?.consecutiveReconcileFailures);
  const attempt = timeOf(st?.fetch?.startedAt);
  return {
    step: failing?.step ?? hit[0],
    message: String(hit[1]).trim(),
    failures: Number.isFinite(failures) && failures > 0 ? failures : 1,
    ...(attempt === undefined ? {} : { attempt }),
  };
}

/** What kapp-controller's lost child means, for a reason or the timeline (pure). */
export function describeLostChild(l: LostChild): string {
  return (
    `kapp-controller's ${l.step} step failed with "${l.message}": its sidecarexec's zombie reaper collected the exit status of ` +
    'the child it ran (vendir, imgpkg, ytt or kbld) before kapp-controller did, a race of kapp-controller\'s (v0.50.0 and v0.51.0 have it; ' +
    'fixed upstream by carvel-dev/kapp-controller#1806), not a fault of the package'
  );
}

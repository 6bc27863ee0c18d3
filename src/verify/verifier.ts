/**
 * Watches one PackageInstall, its App and the Packages of its refName until the verdict is final,
 * recording a timeline. Verdict rules are in evaluate.ts and tracker.ts; this file owns the
 * connections and the timers (settle window, time-out). Nothing sleeps or polls; the one request
 * on a timer is liveness.ts's `GET /readyz`, and only while every watch has been silent for 5s
 * (a paused API server leaves its watch connections open and silent).
 *
 * It also watches kapp-controller's own pods (src/verify/kapp-controller.ts): while kapp-controller
 * is away nothing reconciles, and a failure from an attempt it began before it went away waits
 * for its next attempt.
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { selectVersion } from '../versions/index.js';
import { conditionOf, evaluate, trimMessage, type Evaluation, type Expectation, type KObject, type SelectFn } from './evaluate.js';
import { initialTracker, onEvaluation, onInterrupt, onSettleExpired, onTimeout, type ChangeInfo, type TrackerAction, type TrackerState } from './tracker.js';
import { podProblems, WorkloadPods, workloadScope } from './pods.js';
import type { TimelineEntry, Verdict } from '../results.js';
import { ResumableWatch, UnreachableError } from './watch.js';
import { ApiServerLiveness, type LivenessOptions } from './liveness.js';
import { initialKappController, KAPP_CONTROLLER_NAMESPACES, onKappControllerPods, openOutage, type KappControllerState } from './kapp-controller.js';

export interface VerifyTarget {
  namespace: string;
  name: string;
}

export interface VerifyOptions {
  kc: KubeConfig;
  target: VerifyTarget;
  expect: Expectation;
  settleMs: number;
  timeoutMs: number;
  log?: (message: string) => void;
  /** Defaults to src/versions selectVersion. */
  select?: SelectFn;
  /** Called on each evaluation (tests, the benchmark, live logs). */
  onEvaluation?: (e: Evaluation, at: Date) => void;
  /**
   * Aborted on SIGINT/SIGTERM: the wait stops with verdict `interrupted`. The abort reason names
   * the signal (a string such as "SIGTERM").
   */
  signal?: AbortSignal;
  /** Namespaces whose kapp-controller pods are watched (default: kapp-controller, tkg-system, kube-system). */
  kappControllerNamespaces?: string[];
  /** The API server liveness probe's timings (tests). */
  liveness?: Pick<LivenessOptions, 'silenceMs' | 'probeTimeoutMs' | 'retryMs'>;
}

export interface VerifyOutcome {
  verdict: Verdict;
  reason: string;
  timeline: TimelineEntry[];
  /** When devpkg first saw the full proof (ISO), and when it gave the verdict. */
  wonAt?: string;
  decidedAt: string;
  last: { pkgi?: KObject; app?: KObject; packages: KObject[]; pods?: KObject[] };
  /** Watch statistics, for tests: how often each collection was listed and connected. */
  watchStats: Record<string, { lists: number; connects: number }>;
}

export const defaultSelect: SelectFn = (versions, sel) => {
  try {
    return selectVersion(versions, sel ?? undefined);
  } catch (err) {
    return { selected: undefined, considered: versions.map((v) => ({ version: v, kept: false, reason: (err as Error).message })) };
  }
};

/** A one-line summary of an object for the timeline; undefined fields are left out. */
export function timelineEntry(object: string, o: KObject | undefined, at: Date): TimelineEntry {
  if (!o) return { at: at.toISOString(), object, message: 'absent' };
  const st = o.status ?? {};
  const e: TimelineEntry = { at: at.toISOString(), object };
  if (o.metadata?.generation !== undefined) e.generation = o.metadata.generation;
  if (st.observedGeneration !== undefined) e.observedGeneration = st.observedGeneration;
  const cond = conditionOf(o);
  if (cond) e.condition = cond;
  if (st.version !== undefined) e.version = st.version;
  if (st.lastAttemptedVersion !== undefined) e.lastAttemptedVersion = st.lastAttemptedVersion;
  const msg = st.usefulErrorMessage || st.friendlyDescription;
  if (msg) e.message = trimMessage(msg, 300);
  return e;
}

function sameEntry(a: TimelineEntry | undefined, b: TimelineEntry): boolean {
  if (!a) return false;
  const { at: _a, ...ra } = a;
  const { at: _b, ...rb } = b;
  return JSON.stringify(ra) === JSON.stringify(rb);
}

/** The last writer of an object, from managedFields (who changed it). */
export function lastWriter(o: KObject | undefined): string | undefined {
  const mf = o?.metadata?.managedFields ?? [];
  let best: { manager?: string; time?: string; subresource?: string } | undefined;
  for (const f of mf) if (f.time && (!best?.time || f.time >= best.time)) best = f;
  if (!best?.manager) return undefined;
  return `${best.manager}${best.subresource ? ` (${best.subresource})` : ''}`;
}

export async function verifyPackageInstall(opts: VerifyOptions): Promise<VerifyOutcome> {
  const { kc, target, expect, settleMs, timeoutMs } = opts;
  const log = opts.log ?? (() => undefined);
  const select = opts.select ?? defaultSelect;
  const timeline: TimelineEntry[] = [];
  const lastByObject = new Map<string, TimelineEntry>();
  let pkgi: KObject | undefined;
  let app: KObject | undefined;
  let packages: KObject[] = [];
  let pods: KObject[] = [];
  let tracker: TrackerState = initialTracker();
  let wonAt: string | undefined;
  let lastChange: ChangeInfo | undefined;
  let settleTimer: NodeJS.Timeout | undefined;
  let timeoutTimer: NodeJS.Timeout | undefined;
  let resolveDone!: (o: VerifyOutcome) => void;
  const done = new Promise<VerifyOutcome>((r) => (resolveDone = r));
  const watches: Record<string, ResumableWatch> = {};
  // The --timeout bounds the whole wait; only a win seen before it may hold its settle window past it.
  const deadline = Date.now() + timeoutMs;

  // Objects deleted while watching, and dev Packages of other devpkg runs: named in the verdict.
  const outside: string[] = [];
  let devPackageDeleted = false;
  let lastProblem: string | undefined;
  let kapp: KappControllerState = initialKappController();
  const kappWatches = new Map<string, ResumableWatch>();
  const onSignal = (): void => apply(onInterrupt(tracker, String(opts.signal?.reason ?? 'a signal')));

  const finish = (verdict: Verdict, reason: string): void => {
    if (settleTimer) clearTimeout(settleTimer);
    if (timeoutTimer) clearTimeout(timeoutTimer);
    opts.signal?.removeEventListener('abort', onSignal);
    for (const w of Object.values(watches)) w.stop();
    for (const w of kappWatches.values()) w.stop();
    workload.stop();
    liveness.stop();
    const away = openOutage(kapp);
    const gap = liveness.current();
    if (gap) timeline.push({ at: new Date().toISOString(), object: 'API server', message: `not answering since ${gap.from.toISOString()} (${gap.cause})` });
    if (verdict === 'timed-out' || verdict === 'interrupted') {
      if (away) reason += `; kapp-controller has had no ready pod since ${new Date(away.from).toISOString()} (${away.what})`;
      if (gap) reason += `; the API server has not answered since ${gap.from.toISOString()} (${gap.cause})`;
    }
    if (verdict !== 'won' && outside.length) {
      reason += `; while devpkg watched: ${outside.join('; ')}`;
      if (devPackageDeleted) reason += `. ${recoveryHint(target)}`;
    }
    if (verdict === 'timed-out' && !tracker.last && lastProblem) reason += `; the last problem reaching the cluster: ${lastProblem}`;
    const stats: VerifyOutcome['watchStats'] = {};
    for (const [k, w] of Object.entries(watches)) stats[k] = { lists: w.lists, connects: w.connects };
    resolveDone({ verdict, reason, timeline, wonAt, decidedAt: new Date().toISOString(), last: { pkgi, app, packages, pods }, watchStats: stats });
  };

  const apply = (r: { state: TrackerState; action: TrackerAction }): void => {
    tracker = r.state;
    const a = r.action;
    if (a.type === 'start-settle') {
      log(`${target.namespace}/${target.name}: ${expect.version} won; holding for the ${Math.round(a.ms / 1000)}s settle window`);
      settleTimer = setTimeout(() => apply(onSettleExpired(tracker, settleMs)), a.ms);
      // The settle window may end after the deadline; nothing else waits past it.
      if (timeoutTimer) clearTimeout(timeoutTimer);
      timeoutTimer = setTimeout(() => apply(onTimeout(tracker, timeoutMs)), Math.max(deadline - Date.now(), a.ms));
    } else if (a.type === 'done') {
      finish(a.verdict, a.reason);
    }
  };

  // kapp-controller's own faults waited out (Evaluation.fault), each failed attempt once.
  const faultsSeen = new Set<string>();
  const reevaluate = (): void => {
    if (tracker.phase === 'done') return;
    const e = evaluate({ pkgi, app, packages, pods, kappControllerOutages: kapp.outages }, expect, select);
    const now = new Date();
    if (e.fault && !faultsSeen.has(e.fault.key)) {
      faultsSeen.add(e.fault.key);
      timeline.push({ at: now.toISOString(), object: 'kapp-controller', message: e.fault.message });
      log(`${target.namespace}/${target.name}: kapp-controller: ${e.fault.message}`);
    }
    if (e.state === 'won' && !wonAt) wonAt = now.toISOString();
    opts.onEvaluation?.(e, now);
    apply(onEvaluation(tracker, e, settleMs, lastChange));
  };

  const record = (object: string, o: KObject | undefined): void => {
    const entry = timelineEntry(object, o, new Date());
    if (sameEntry(lastByObject.get(object), entry)) return;
    lastByObject.set(object, entry);
    timeline.push(entry);
    const who = lastWriter(o);
    lastChange = {
      description:
        `${object} ${target.namespace}/${target.name} changed (generation ${entry.generation ?? '?'}, ` +
        `condition ${entry.condition ?? 'none'}${entry.version ? `, status.version ${entry.version}` : ''}` +
        `${who ? `; last written by ${who}` : ''})`,
      at: entry.at,
    };
  };

  // Why the workload's pods do not start (image pulls, crash loops), as the timeline sees it.
  const seenPodProblems = new Set<string>();
  const workload = new WorkloadPods(kc, {
    onChange: (current) => {
      pods = current;
      for (const p of podProblems(pods)) {
        const key = `${p.namespace}/${p.pod}/${p.container}/${p.reason}`;
        if (seenPodProblems.has(key)) continue;
        seenPodProblems.add(key);
        timeline.push({ at: new Date().toISOString(), object: 'Pod', condition: p.reason, message: trimMessage(`${p.namespace}/${p.pod} ${p.container}: ${p.message}`, 300) });
      }
      reevaluate();
    },
    onProblem: (m) => log(`${target.namespace}/${target.name}: ${m}`),
    onActivity: () => liveness.heard(),
  });

  // The API server answering while the watches are silent; a gap is named and the watches reopened.
  const liveness = new ApiServerLiveness({
    probe: async (signal) => {
      const k8s = await import('@kubernetes/client-node');
      // Any answer counts (ready or not): the question is whether the server is there.
      await new k8s.Health(kc).readyz({ signal });
    },
    onDown: (from, cause) => log(`${target.namespace}/${target.name}: the API server has not answered since ${from.toISOString()} (${cause}); waiting for it`),
    onUp: (g) => {
      const message = `not answering from ${g.from.toISOString()} to ${g.to.toISOString()} (${g.cause}); the watches were reopened from their last resourceVersion`;
      timeline.push({ at: g.to.toISOString(), object: 'API server', message });
      log(`${target.namespace}/${target.name}: API server ${message}`);
      for (const w of [...Object.values(watches), ...kappWatches.values()]) w.reopen();
      workload.reopen();
    },
    ...opts.liveness,
  });
  const heard = (): void => liveness.heard();

  // kapp-controller's own pods: when it goes away and when it is back.
  const onKappPods = (): void => {
    const all = [...kappWatches.values()].flatMap((w) => [...w.current().values()]);
    const r = onKappControllerPods(kapp, all, Date.now());
    kapp = r.state;
    if (!r.note) return;
    const at = new Date(r.note.at).toISOString();
    timeline.push({ at, object: 'kapp-controller', message: r.note.message });
    log(`${target.namespace}/${target.name}: kapp-controller: ${r.note.message}`);
    reevaluate();
  };
  for (const namespace of opts.kappControllerNamespaces ?? KAPP_CONTROLLER_NAMESPACES) {
    kappWatches.set(
      namespace,
      new ResumableWatch(kc, { group: '', version: 'v1', plural: 'pods', namespace }, { onChange: onKappPods, onActivity: heard, onProblem: (m) => log(`${target.namespace}/${target.name}: ${m}`) }),
    );
  }

  // When the packaging API serves no watch, the Packages are listed again on each change of the
  // PackageInstall (event-driven still: no timer).
  let listPackagesOnChange = false;
  const refNameOf = (): string | undefined => pkgi?.spec?.packageRef?.refName as string | undefined;
  const filterPackages = (all: Map<string, KObject>): KObject[] => {
    const ref = refNameOf();
    return [...all.values()].filter((p) => ref !== undefined && p.spec?.refName === ref);
  };

  /**
   * Between two sets of the refName's Packages: the dev Package deleted (kapp-controller then
   * wants to go back, and its downgrade guard refuses), or another devpkg run's dev Package
   * appearing (two runs on one PackageInstall).
   */
  // Names of every Package of the namespace seen so far (any refName): a Package is new only when
  // it was absent from every earlier list, not when the refName filter first lets it through.
  let seenNames: Set<string> | undefined;
  const notePackageChanges = (before: KObject[], after: KObject[], all: Map<string, KObject>): void => {
    const at = new Date().toISOString();
    for (const p of before) {
      // Gone from the namespace, not merely filtered out (the refName is unknown while the
      // PackageInstall is absent).
      if (all.has(p.metadata?.name ?? '')) continue;
      const isDev = p.spec?.version === expect.version;
      const note = `${isDev ? 'the dev Package' : 'Package'} ${p.metadata?.namespace ?? target.namespace}/${p.metadata?.name} was deleted${writtenBy(p)}`;
      if (isDev) devPackageDeleted = true;
      outside.push(`${note} at ${at}`);
      timeline.push({ at, object: `Package ${p.metadata?.name}`, message: 'deleted' });
      lastChange = { description: note, at };
    }
    const earlier = seenNames;
    seenNames = new Set([...(earlier ?? []), ...all.keys()]);
    if (!earlier) return;
    for (const p of after) {
      if (earlier.has(p.metadata?.name ?? '') || p.spec?.version === expect.version) continue;
      if (!(p.metadata?.managedFields ?? []).some((f) => f.manager === 'devpkg')) continue;
      const note = `another devpkg run applied Package ${p.metadata?.namespace ?? target.namespace}/${p.metadata?.name} (version ${p.spec?.version})`;
      timeline.push({ at, object: `Package ${p.metadata?.name}`, message: 'applied by another devpkg run' });
      lastChange = { description: note, at };
      outside.push(`${note} at ${at}`);
      log(`${target.namespace}/${target.name}: ${note}`);
    }
  };

  // A watch that cannot keep up (reconnecting, refused): logged, and kept for the verdict's reason.
  const watchProblem = (m: string): void => {
    lastProblem = m;
    log(`${target.namespace}/${target.name}: ${m}`);
  };

  watches.packageInstall = new ResumableWatch(
    kc,
    { group: 'packaging.carvel.dev', version: 'v1alpha1', plural: 'packageinstalls', namespace: target.namespace, name: target.name },
    {
      onChange: (objs) => {
        const before = pkgi;
        pkgi = objs.get(target.name);
        const deleted = before && !pkgi ? `PackageInstall ${target.namespace}/${target.name} was deleted${writtenBy(before)}` : undefined;
        record('PackageInstall', pkgi);
        if (deleted) {
          // record() says what changed; a deletion is named as such.
          lastChange = { description: deleted, at: new Date().toISOString() };
          outside.push(`${deleted} at ${lastChange.at}`);
        }
        if (listPackagesOnChange && watches.packages) {
          void watches.packages
            .relist()
            .catch((err: unknown) => log(`${target.namespace}/${target.name}: cannot list Packages: ${describeApiError(err)}`))
            .then(() => {
              const before = packages;
              const all = watches.packages!.current();
              packages = filterPackages(all);
              notePackageChanges(before, packages, all);
              reevaluate();
            });
          return;
        }
        if (watches.packages) {
          const prev = packages;
          const all = watches.packages.current();
          packages = filterPackages(all);
          notePackageChanges(prev, packages, all);
        }
        reevaluate();
      },
      onProblem: watchProblem,
      onActivity: heard,
    },
  );
  watches.app = new ResumableWatch(
    kc,
    { group: 'kappctrl.k14s.io', version: 'v1alpha1', plural: 'apps', namespace: target.namespace, name: target.name },
    {
      onChange: (objs) => {
        app = objs.get(target.name);
        record('App', app);
        workload.track(workloadScope(app), target);
        reevaluate();
      },
      onProblem: watchProblem,
      onActivity: heard,
    },
  );
  watches.packages = new ResumableWatch(
    kc,
    { group: 'data.packaging.carvel.dev', version: 'v1alpha1', plural: 'packages', namespace: target.namespace },
    {
      onChange: (objs, changed) => {
        const before = packages;
        packages = filterPackages(objs);
        notePackageChanges(before, packages, objs);
        if (changed === undefined || changed.spec?.refName === refNameOf()) reevaluate();
      },
      onUnsupported: (m) => {
        log(`${target.namespace}/${target.name}: ${m}; listing Packages on each PackageInstall change instead`);
        listPackagesOnChange = true;
      },
      onProblem: watchProblem,
      onActivity: heard,
    },
  );

  timeoutTimer = setTimeout(() => apply(onTimeout(tracker, timeoutMs)), timeoutMs);
  if (opts.signal?.aborted) onSignal();
  else opts.signal?.addEventListener('abort', onSignal, { once: true });
  // The watches start in the background: the verdict (a time-out, a signal) never waits for a
  // request the server does not answer.
  void (async () => {
    try {
      // Packages first, so the first PackageInstall evaluation already sees them.
      await watches.packages!.start().catch((err: unknown) => {
        if (err instanceof UnreachableError) throw err;
        // Without the Packages a not-selected verdict cannot be explained, but a win can still be proven.
        log(`${target.namespace}/${target.name}: cannot list Packages (${describeApiError(err)}); continuing without them`);
        watches.packages?.stop();
      });
      await watches.app!.start();
      await watches.packageInstall!.start();
      if (tracker.phase !== 'done') {
        liveness.start();
        // kapp-controller's pods explain a wait; a namespace whose pods cannot be read is left out.
        for (const [namespace, w] of kappWatches) {
          w.start().catch((err: unknown) => {
            log(`${target.namespace}/${target.name}: cannot watch pods in ${namespace} (kapp-controller's): ${describeApiError(err)}`);
            w.stop();
          });
        }
      }
    } catch (err) {
      if (tracker.phase !== 'done') {
        tracker = { ...tracker, phase: 'done' };
        if (err instanceof UnreachableError) {
          finish('error', `cannot reach the cluster at ${kc.getCurrentCluster()?.server ?? '(no server)'}: ${err.message}; nothing was observed (check the kubeconfig, --kubeconfig or input kubeconfig, and that the API server is up)`);
        } else {
          finish('error', `could not watch ${target.namespace}/${target.name}: ${describeApiError(err)}`);
        }
      }
    }
  })();
  return done;
}

/** ", last written by X" out of an object's managedFields; the API does not record who deletes. */
function writtenBy(o: KObject): string {
  const who = lastWriter(o);
  return who ? ` (the API does not record who deletes; it was last written by ${who})` : ' (the API does not record who deletes)';
}

/** How to get a PackageInstall going again after its dev Package was deleted under it. */
export function recoveryHint(t: VerifyTarget): string {
  return (
    `kapp-controller will not go back to a lower version by itself (downgrade guard). To recover: run devpkg dev again ` +
    `(it plans a higher dev version), or allow the downgrade with kubectl annotate packageinstall -n ${t.namespace} ${t.name} ` +
    `packaging.carvel.dev/downgradable="", or delete PackageInstall ${t.namespace}/${t.name} so that its owner (e.g. the addons manager) recreates it`
  );
}

/** The API server's message and reason out of a client error, so the log says what the server refused and why. */
export function describeApiError(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { code?: number; body?: unknown; message?: string };
    let body: { message?: string; reason?: string } | undefined;
    if (typeof e.body === 'string') {
      try {
        body = JSON.parse(e.body) as typeof body;
      } catch {
        body = undefined;
      }
    } else if (e.body && typeof e.body === 'object') {
      body = e.body as typeof body;
    }
    if (body?.message) return `${body.message}${body.reason ? ` (${body.reason})` : ''}${e.code ? ` [HTTP ${e.code}]` : ''}`;
    if (e.message) return e.message.split('\n')[0]!;
  }
  return String(err);
}

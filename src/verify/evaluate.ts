/**
 * The verdict logic, pure: given what the cluster shows right now (a PackageInstall, its App and
 * the Packages of its refName), say whether the dev version has won, is still on its way, or has
 * failed and why. Watching and timing live in watch.ts and tracker.ts.
 */
import { goneRegistryHint, registryHint } from './hints.js';
import { describePodProblem, podProblems, type PodProblem } from './pods.js';
import type { KObject } from './kobject.js';
import { appFailureStep, timeOf } from './app-status.js';
import { describeLostChild, interruptedAttempt, lostChildAttempt, LOST_CHILD_TRIES, type Outage } from './kapp-controller.js';

// Re-exported for pods.ts and diagnostics.ts (changed by another branch; point them at kobject.ts after it merges).
export type { KObject } from './kobject.js';
export { appFailureStep, timeOf } from './app-status.js';

export interface VersionSelection {
  constraints?: string;
  prereleases?: { identifiers?: string[] } | null;
}

/** What src/versions' selectVersion returns; injected so the verdict stays pure and testable. */
export interface SelectionResult {
  selected?: string;
  considered: Array<{ version: string; kept: boolean; reason: string }>;
}
export type SelectFn = (versions: string[], selection: VersionSelection | undefined) => SelectionResult;

export interface ObservedState {
  pkgi?: KObject;
  app?: KObject;
  /** Packages of the PackageInstall's refName visible in its namespace (global namespace included). */
  packages?: KObject[];
  /** Pods of the workload the App deploys (its kapp label, in the namespaces it deploys into). */
  pods?: KObject[];
  /** Times kapp-controller had no ready pod while devpkg watched (src/verify/kapp-controller.ts). */
  kappControllerOutages?: Outage[];
}

export interface Expectation {
  version: string;
  /** sha256:... of the dev bundle; when given, the App's fetch output must name it. */
  digest?: string;
}

export type EvaluationState = 'won' | 'pending' | 'not-selected' | 'reconcile-failed' | 'downgrade-blocked';

export interface Evaluation {
  state: EvaluationState;
  reason: string;
  /**
   * The PackageInstall still holds the dev version (desired and last attempted) and nothing has
   * failed (or its attempt failed only because kapp-controller lost a race, which its next attempt
   * decides): a re-reconcile in flight. During the settle window this does not break a win.
   */
  holdsDev: boolean;
  selection?: SelectionResult;
  /**
   * A fault of kapp-controller's, not the package's, that this evaluation waits out: for the
   * timeline, once per `key` (one failed attempt).
   */
  fault?: { key: string; message: string };
}

/** kapp-controller's downgrade guard: the version it refused and the higher one attempted before. */
const DOWNGRADE =
  /Stopped installing matched version '([^']+)' since last attempted version '([^']+)' is higher/;
/** No version of the refName satisfies the PackageInstall's constraints (a pin, a range). */
const NO_VERSION = /Expected to find at least one version/;
/** kapp-controller's PackageInstall-level refusals (not an App's failure). */
const isPackageInstallRefusal = (m: string): boolean => DOWNGRADE.test(m) || NO_VERSION.test(m);
const MAX_MESSAGE = 1500;

/** The type of the one true condition when there is exactly one condition, else a summary. */
export function conditionOf(o: KObject | undefined): string | undefined {
  const conds = o?.status?.conditions as Array<{ type?: string; status?: string }> | undefined;
  if (!conds || conds.length === 0) return undefined;
  const trueOnes = conds.filter((c) => c.status === 'True').map((c) => c.type ?? '?');
  if (conds.length === 1 && trueOnes.length === 1) return trueOnes[0];
  return trueOnes.length ? trueOnes.join('+') : conds.map((c) => `${c.type}=${c.status}`).join(',');
}

export function generationSettled(o: KObject | undefined): boolean {
  const g = o?.metadata?.generation;
  return g !== undefined && o?.status?.observedGeneration === g;
}

/** Trims a controller message to something a PR comment can carry. */
export function trimMessage(text: unknown, max = MAX_MESSAGE): string {
  const s = String(text ?? '').trim();
  if (s.length <= max) return s;
  return `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

/** The App's stderr of the step that failed in its last attempt, trimmed ('' when none). */
export function appFailure(app: KObject | undefined): string {
  const f = appFailureStep(app);
  if (!f) return '';
  return `${f.step} failed (exit ${f.exitCode})${f.text ? `: ${trimMessage(f.text, 800)}` : ''}`;
}

/** The failing step for a reason that already quotes usefulErrorMessage: its stderr only when it says more. */
function appFailureBeside(app: KObject | undefined, useful: string): string {
  const f = appFailureStep(app);
  if (!f) return '';
  if (useful && trimMessage(f.text) === useful) return `${f.step} failed (exit ${f.exitCode}) with that message`;
  return appFailure(app);
}

/** The bundle images an App's spec fetches (spec.fetch[].imgpkgBundle.image). */
export function appBundleImages(app: KObject | undefined): string[] {
  const fetch = app?.spec?.fetch as Array<{ imgpkgBundle?: { image?: string } }> | undefined;
  return (fetch ?? []).map((f) => f.imgpkgBundle?.image).filter((i): i is string => typeof i === 'string');
}

/** The bundle images the Package of `version` fetches (spec.template.spec.fetch[].imgpkgBundle.image). */
export function packageBundleImages(packages: KObject[] | undefined, version: string): string[] {
  const pkg = (packages ?? []).find((p) => p.spec?.version === version);
  return appBundleImages({ spec: pkg?.spec?.template?.spec });
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * When the App's last fetch started before the dev Package existed, its result is an earlier
 * attempt's: the dev bundle has the same digest as a bundle the App fetched before, so the App's
 * spec did not change and kapp-controller did not try again. Pure; undefined when not so.
 */
export function earlierAttemptNote(app: KObject | undefined, packages: KObject[] | undefined, dev: string): string | undefined {
  const fetched = timeOf(app?.status?.fetch?.startedAt);
  const devPkg = (packages ?? []).find((p) => p.spec?.version === dev);
  const created = timeOf(devPkg?.metadata?.creationTimestamp);
  if (fetched === undefined || created === undefined || fetched >= created) return undefined;
  return (
    `note: this is the result of an earlier attempt. The App last fetched at ${new Date(fetched).toISOString()}, before the dev ` +
    `Package ${devPkg?.metadata?.name ?? dev} was created (${new Date(created).toISOString()}): the dev bundle has the same digest ` +
    'as a bundle an earlier dev version used, so the App\'s spec did not change and kapp-controller reports that attempt\'s result ' +
    'without trying again. Change the bundle\'s content to get a new attempt.'
  );
}

export function packageVersions(packages: KObject[] | undefined): string[] {
  return (packages ?? [])
    .map((p) => (p.spec?.version as string | undefined) ?? '')
    .filter((v) => v !== '');
}

/** "1.0.0 (kept), 1.0.1-dev.1 (dropped: ...)", for a reason text. */
export function explainSelection(sel: SelectionResult, dev: string): string {
  const seen = sel.considered
    .map((c) => `${c.version}${c.version === dev ? ' [dev]' : ''} (${c.kept ? 'kept' : 'dropped'}${c.reason ? `: ${c.reason}` : ''})`)
    .join(', ');
  return `versions seen: ${seen || 'none'}; selected: ${sel.selected ?? 'none'}`;
}

function describePkgi(pkgi: KObject): string {
  const st = pkgi.status ?? {};
  const gen = `generation ${pkgi.metadata?.generation ?? '?'}/observed ${st.observedGeneration ?? '?'}`;
  return `condition ${conditionOf(pkgi) ?? 'none'}, status.version ${st.version ?? 'none'}, lastAttemptedVersion ${st.lastAttemptedVersion ?? 'none'}, ${gen}`;
}

/**
 * Waiting pods of the App's attempt at the dev version: the PackageInstall last attempted it, the
 * App fetched the dev bundle (when its digest is known) and has not succeeded, and the pods were
 * created since that deploy started.
 */
export function devWorkloadProblems(state: ObservedState, expect: Expectation): PodProblem[] {
  const { pkgi, app, pods } = state;
  if (!pods?.length || !app || pkgi?.status?.lastAttemptedVersion !== expect.version) return [];
  if (conditionOf(app) === 'ReconcileSucceeded') return [];
  if (expect.digest && !String(app.status?.fetch?.stdout ?? '').includes(expect.digest)) return [];
  return podProblems(pods, timeOf(app.status?.deploy?.startedAt));
}

/** The images of the containers that cannot pull theirs. */
function workloadImages(problems: PodProblem[]): string[] {
  return problems.filter((p) => /Image|Pull/.test(p.reason) && p.image).map((p) => p.image!);
}

function podLines(problems: PodProblem[], max = 3): string {
  const shown = problems.slice(0, max).map(describePodProblem);
  if (problems.length > max) shown.push(`and ${problems.length - max} more`);
  return shown.join('; ');
}

/** The App fetches the dev version's bundle: by the digest it fetched, else by its spec naming the dev Package's bundle. */
function appHoldsDevBundle(app: KObject, devImages: string[], digest?: string): boolean {
  if (digest) return String(app.status?.fetch?.stdout ?? '').includes(digest);
  return devImages.length > 0 && sameList(devImages, appBundleImages(app));
}

/** Decides the state of one PackageInstall against the dev version it should install. */
export function evaluate(state: ObservedState, expect: Expectation, select?: SelectFn): Evaluation {
  const { pkgi, app } = state;
  const dev = expect.version;
  if (!pkgi) {
    return { state: 'pending', reason: 'the PackageInstall does not exist (yet)', holdsDev: false };
  }
  const st = pkgi.status ?? {};
  const settled = generationSettled(pkgi);
  const cond = conditionOf(pkgi);
  const useful = trimMessage(st.usefulErrorMessage);
  const holdsDev = st.version === dev && st.lastAttemptedVersion === dev && cond !== 'ReconcileFailed';

  // The downgrade guard names the version it refused; only a refusal of ours is our verdict.
  const guard = DOWNGRADE.exec(String(st.usefulErrorMessage ?? ''));
  // Only once kapp-controller has seen the current spec: a refusal from before a spec change is stale.
  if (settled && guard && guard[1] === dev && cond === 'ReconcileFailed') {
    return {
      state: 'downgrade-blocked',
      reason:
        `kapp-controller's downgrade guard refused ${dev}: version ${guard[2]} was attempted before and is higher. ` +
        `Use a dev version above ${guard[2]}, or annotate the PackageInstall with packaging.carvel.dev/downgradable: "".`,
      holdsDev: false,
    };
  }

  if (settled && cond === 'ReconcileFailed' && st.lastAttemptedVersion === dev) {
    // Right after the PackageInstall points its App at a new bundle, kapp-controller can report
    // the App's previous failure before the App has reconciled the new spec: not final yet.
    if (app && (!generationSettled(app) || conditionOf(app) === 'Reconciling')) {
      return { state: 'pending', reason: `the App has not reconciled ${dev} yet (its last result was a failure)`, holdsDev: false };
    }
    // The App as last seen may not even point at the dev bundle yet (its update is another event,
    // which can arrive after the PackageInstall's): its failure is then an earlier attempt's.
    const devImages = packageBundleImages(state.packages, dev);
    if (app && devImages.length > 0 && !sameList(devImages, appBundleImages(app))) {
      return { state: 'pending', reason: `the App does not fetch ${dev}'s bundle yet (its last result, a failure, is an earlier attempt's)`, holdsDev: false };
    }
    // kapp-controller went away during this run and its App has since reconciled the dev bundle
    // successfully: the PackageInstall reports the App's status on its own next reconcile, so its
    // failure is the attempt that was stopped. Only then: a PackageInstall's own refusal (the
    // downgrade guard, a version that cannot be selected, a pin) also leaves a succeeded App behind,
    // and that failure is final. If it never follows, the timeout says so.
    if (
      state.kappControllerOutages?.length &&
      !isPackageInstallRefusal(String(st.usefulErrorMessage ?? '')) &&
      app &&
      generationSettled(app) &&
      conditionOf(app) === 'ReconcileSucceeded' &&
      appHoldsDevBundle(app, devImages, expect.digest)
    ) {
      return {
        state: 'pending',
        reason: `the App has reconciled ${dev}'s bundle, but the PackageInstall still reports an earlier failure${useful ? ` (usefulErrorMessage: ${useful})` : ''}; waiting for it to follow its App`,
        holdsDev: false,
      };
    }
    // An attempt begun before kapp-controller went away may have failed only because its
    // process was stopped: the attempt kapp-controller makes once it is back decides.
    const interrupted = interruptedAttempt(app, state.kappControllerOutages);
    if (interrupted) {
      const { outage, attempt } = interrupted;
      const since = attempt === undefined ? '' : ` begun at ${new Date(attempt).toISOString()},`;
      const back = outage.to === undefined ? 'once kapp-controller is back' : `kapp-controller has been back since ${new Date(outage.to).toISOString()}`;
      return {
        state: 'pending',
        reason:
          `the failure of ${dev} is from an attempt${since} before kapp-controller went away at ${new Date(outage.from).toISOString()} ` +
          `(${outage.what}); waiting for its next attempt (${back})${useful ? `; that attempt's usefulErrorMessage: ${useful}` : ''}`,
        holdsDev: false,
      };
    }
    // kapp-controller lost its child's exit status (its own race): its next attempt, 2^n seconds
    // later, decides; a package that fails so every time does not get away with it.
    const lost = lostChildAttempt(app);
    if (lost && lost.failures <= LOST_CHILD_TRIES) {
      const message = `${describeLostChild(lost)}; failed attempt ${lost.failures} of at most ${LOST_CHILD_TRIES} waited out, kapp-controller tries again in about ${2 ** lost.failures}s`;
      return {
        state: 'pending',
        reason: `the attempt at ${dev} failed, but not on the package: ${message}`,
        holdsDev: st.version === dev,
        fault: { key: `${lost.step}@${lost.attempt ?? '?'}#${lost.failures}`, message },
      };
    }
    const raced = lost ? `${describeLostChild(lost)}; it failed so ${lost.failures} attempts in a row, so it is the verdict` : '';
    const appErr = appFailureBeside(app, useful);
    const hint = registryHint(`${st.usefulErrorMessage ?? ''}\n${appFailure(app)}`);
    const earlier = expect.digest ? earlierAttemptNote(app, state.packages, dev) : undefined;
    const workload = devWorkloadProblems(state, expect);
    const pods = workload.length ? `pods: ${podLines(workload)}` : '';
    const gone = goneRegistryHint(workloadImages(workload));
    const msg = [useful && `usefulErrorMessage: ${useful}`, appErr && appErr !== useful ? appErr : '', pods, hint, gone, earlier, raced]
      .filter(Boolean)
      .join('\n');
    return {
      state: 'reconcile-failed',
      reason: `kapp-controller could not reconcile ${dev}${msg ? `:\n${msg}` : ' (no error message)'}`,
      holdsDev: false,
    };
  }

  if (settled && cond === 'ReconcileSucceeded' && st.version === dev && st.lastAttemptedVersion === dev) {
    if (!app) return { state: 'pending', reason: `the App ${pkgi.metadata?.name} is not there yet`, holdsDev };
    const appCond = conditionOf(app);
    if (!generationSettled(app) || appCond !== 'ReconcileSucceeded') {
      if (appCond === 'ReconcileFailed') {
        return { state: 'pending', reason: `the App failed: ${trimMessage(app.status?.usefulErrorMessage) || appFailure(app)}`, holdsDev };
      }
      return {
        state: 'pending',
        reason: `the App is not reconciled yet (condition ${appCond ?? 'none'}, generation ${app.metadata?.generation}/observed ${app.status?.observedGeneration ?? '?'})`,
        holdsDev,
      };
    }
    if (expect.digest) {
      const stdout = String(app.status?.fetch?.stdout ?? '');
      if (!stdout.includes(expect.digest)) {
        const named = /sha256:[0-9a-f]{64}/.exec(stdout)?.[0];
        const images = packageBundleImages(state.packages, dev);
        // The Package of the dev version itself names another bundle, and the App has reconciled
        // exactly that spec: nothing changes this short of a new Package, so the verdict is final.
        // (Right after a switch the PackageInstall can report success before the App's new spec is
        // seen here; then the App's spec still differs from the Package's and this waits.)
        if (images.length > 0 && !images.some((i) => i.includes(expect.digest!)) && sameList(images, appBundleImages(app))) {
          return {
            state: 'not-selected',
            reason:
              `kapp-controller installed ${dev}, but from bundle ${images.join(', ')}, not the dev bundle ${expect.digest}: ` +
              `the Package ${dev} references that bundle (check --bundle, or whether the Package was replaced)`,
            holdsDev: false,
          };
        }
        return {
          state: 'pending',
          reason: `the App fetched ${named ?? 'a bundle that is not named in its fetch output'}, not the dev bundle ${expect.digest}`,
          holdsDev: false,
        };
      }
    }
    return {
      state: 'won',
      reason:
        `PackageInstall ${pkgi.metadata?.namespace}/${pkgi.metadata?.name} reconciled ${dev} and its App succeeded` +
        (expect.digest ? ` with the dev bundle ${expect.digest}` : ''),
      holdsDev: true,
    };
  }

  // kapp-controller is still deploying the dev version, but its pods cannot start.
  const workload = devWorkloadProblems(state, expect);
  const finalPod = workload.find((p) => p.final);
  if (finalPod) {
    const gone = goneRegistryHint(workloadImages(workload));
    return {
      state: 'reconcile-failed',
      reason:
        `the workload of ${dev} cannot start: ${podLines(workload)} ` +
        `(kapp-controller is still waiting for it and would fail only at the workload's progress deadline; ${describePkgi(pkgi)})` +
        (gone ? `\n${gone}` : ''),
      holdsDev: false,
    };
  }
  const podNote = workload.length ? `; pods: ${podLines(workload)}` : '';

  // Another version is in place (or the PackageInstall failed on something else): is that final?
  const versions = packageVersions(state.packages);
  if (settled && cond !== 'Reconciling' && st.version !== dev && select) {
    if (!versions.includes(dev)) {
      return {
        state: 'pending',
        reason: `the dev Package ${dev} is not visible in namespace ${pkgi.metadata?.namespace} (yet); ${describePkgi(pkgi)}`,
        holdsDev: false,
      };
    }
    const selection = select(versions, pkgi.spec?.packageRef?.versionSelection as VersionSelection | undefined);
    if (selection.selected !== dev) {
      const lost = selection.considered.find((c) => c.version === dev);
      const why = lost && !lost.kept ? `${dev} was dropped: ${lost.reason}` : `${selection.selected ?? 'another version'} ranks above ${dev}`;
      const constraint = pkgi.spec?.packageRef?.versionSelection
        ? ` (versionSelection ${JSON.stringify(pkgi.spec.packageRef.versionSelection)})`
        : ' (no versionSelection: prereleases are dropped)';
      return {
        state: 'not-selected',
        reason:
          `kapp-controller keeps ${st.version ?? st.lastAttemptedVersion ?? 'another version'}: ${why}${constraint}; ` +
          explainSelection(selection, dev) +
          (cond === 'ReconcileFailed' && useful ? `; usefulErrorMessage: ${useful}` : ''),
        holdsDev: false,
        selection,
      };
    }
    return {
      state: 'pending',
      reason: `kapp-controller has not switched to ${dev} yet (selection picks it); ${describePkgi(pkgi)}`,
      holdsDev: false,
      selection,
    };
  }

  return {
    state: 'pending',
    reason: `${describePkgi(pkgi)}${useful ? `; usefulErrorMessage: ${useful}` : ''}${podNote}`,
    holdsDev,
  };
}

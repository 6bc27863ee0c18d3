/**
 * Verifies several dev Packages at once (one set of watches each, all concurrent) and turns each
 * outcome into a PackageResult: assertions after a win, diagnostics after anything else.
 */
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { UsageError } from '../errors.js';
import { runAssertions, type Assertion } from './assertions.js';
import { collectDiagnostics } from './diagnostics.js';
import type { Expectation } from './evaluate.js';
import type { PackageResult } from '../results.js';
import { verifyPackageInstall, type VerifyOutcome, type VerifyTarget } from './verifier.js';

export type { PackageResult, TimelineEntry, Verdict, AssertionResult } from '../results.js';

export interface VerifyRequest {
  /** Everything of the result known before verifying (verdict etc. are filled in). */
  base: Omit<PackageResult, 'verdict' | 'reason' | 'timeline'>;
  target: VerifyTarget;
  expect: Expectation;
  /** The dev Packages devpkg applied for this request: an interrupted result names them. */
  applied?: Array<{ namespace: string; name: string }>;
}

export interface VerifyAllOptions {
  kc: KubeConfig;
  settleMs: number;
  timeoutMs: number;
  assertions?: Assertion[];
  /** Where failed verdicts put their diagnostics (a subfolder per package). */
  diagnosticsDir?: string;
  /** Extra log files worth a tail in the diagnostics. */
  extraLogs?: string[];
  log?: (message: string) => void;
  onOutcome?: (req: VerifyRequest, outcome: VerifyOutcome) => void;
  /** Aborted on SIGINT/SIGTERM: every wait ends `interrupted` (see src/interrupt.ts). */
  signal?: AbortSignal;
  /**
   * How long collecting diagnostics may take (default 30s): an API server that stopped answering
   * must not hold the verdict back; what was written by then stays.
   */
  diagnosticsDeadlineMs?: number;
}

/** True when the dev version won and every assertion held. */
export function passed(r: PackageResult): boolean {
  return r.verdict === 'won' && (r.assertions ?? []).every((a) => a.ok);
}

export async function verifyAll(requests: VerifyRequest[], opts: VerifyAllOptions): Promise<PackageResult[]> {
  return Promise.all(requests.map((req) => verifyOne(req, opts)));
}

export async function verifyOne(req: VerifyRequest, opts: VerifyAllOptions): Promise<PackageResult> {
  const log = opts.log ?? (() => undefined);
  const t = `${req.target.namespace}/${req.target.name}`;
  log(`${t}: waiting for ${req.expect.version} to win (settle ${opts.settleMs / 1000}s, time-out ${opts.timeoutMs / 1000}s)`);
  const outcome = await verifyPackageInstall({
    kc: opts.kc,
    target: req.target,
    expect: req.expect,
    settleMs: opts.settleMs,
    timeoutMs: opts.timeoutMs,
    log,
    signal: opts.signal,
  });
  opts.onOutcome?.(req, outcome);
  const result: PackageResult = {
    ...req.base,
    verdict: outcome.verdict,
    reason: outcome.verdict === 'interrupted' ? withApplied(outcome.reason, req.applied) : outcome.reason,
    timeline: outcome.timeline,
    phases: [...(req.base.phases ?? []), ...(outcome.wonAt ? [{ name: 'won', seenAt: outcome.wonAt }] : [])],
  };
  const clusterRef = outcome.last.pkgi?.spec?.packageRef?.refName as string | undefined;
  if (clusterRef) {
    result.targetRefName ||= clusterRef;
    result.refName ||= clusterRef;
  }
  log(`${t}: ${outcome.verdict}: ${summaryLine(outcome.reason)}`);
  if (outcome.verdict === 'won' && opts.assertions?.length) {
    result.assertions = await runAssertions(opts.kc, opts.assertions);
    const failed = result.assertions.filter((a) => !a.ok);
    for (const a of result.assertions) log(`${t}: assertion ${a.ok ? 'holds' : 'FAILED'}: ${a.description}: ${a.detail}`);
    if (failed.length) result.reason += `; but ${failed.length} of ${result.assertions.length} assertion(s) failed`;
  }
  if (!passed(result) && opts.diagnosticsDir) {
    let deadline: NodeJS.Timeout | undefined;
    const ms = opts.diagnosticsDeadlineMs ?? 30_000;
    try {
      const collecting = collectDiagnostics({
        kc: opts.kc,
        namespace: req.target.namespace,
        name: req.target.name,
        dir: join(opts.diagnosticsDir, `${req.base.name}-${req.target.namespace}-${req.target.name}`),
        pkgi: outcome.last.pkgi,
        app: outcome.last.app,
        packages: outcome.last.packages,
        pods: outcome.last.pods,
        timeline: outcome.timeline,
        reason: result.reason,
        extraLogs: opts.extraLogs,
      });
      const late = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => reject(new Error(`the cluster did not answer within ${ms / 1000}s; what was collected by then is in the folder`)), ms);
      });
      const d = await Promise.race([collecting, late]);
      result.diagnostics = { dir: d.dir, excerpt: d.excerpt };
    } catch (err) {
      log(`${t}: could not collect diagnostics: ${(err as Error).message}`);
    } finally {
      clearTimeout(deadline);
    }
  }
  return result;
}

/**
 * A reason on one line, for the stderr summary: its lines joined (a reason such as
 * "could not reconcile X:" continues on the next line), trimmed to `max` characters. Pure.
 */
export function summaryLine(reason: string, max = 300): string {
  const text = reason
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' ')
    .replace(/\s+/g, ' ');
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** An interrupted run leaves what it applied in place: say what, and how to undo it. */
export function withApplied(reason: string, applied: VerifyRequest['applied']): string {
  if (!applied?.length) return reason;
  const names = applied.map((a) => `Package ${a.namespace}/${a.name}`).join(', ');
  const undo = applied.map((a) => `kubectl delete packages.data.packaging.carvel.dev -n ${a.namespace} ${a.name}`).join('; ');
  return `${reason}. devpkg had applied the dev ${names}; it stays applied (to undo: ${undo})`;
}

/** Parses `NS/NAME`. */
export function parsePackageInstallRef(text: string, what = '--package-install'): VerifyTarget {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(text.trim());
  if (!m) {
    throw new UsageError(`${what}: "${text}" is not NAMESPACE/NAME (e.g. tkg-system/antrea)`);
  }
  return { namespace: m[1]!, name: m[3]! };
}

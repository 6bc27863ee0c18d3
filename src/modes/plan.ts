import { plan, matrixOf, nothingChanged, packageSummary, type PlanOutput } from '../pipeline/plan.js';
import { planRequestOf } from '../pipeline/request.js';
import { sequenceFromContext } from '../pipeline/selection.js';
import { DevpkgError } from '../errors.js';
import { errorSummary } from '../packages/problems.js';
import { annotateProblems } from '../pipeline/problems.js';
import type { ModeContext } from '../pipeline/context.js';

/** Plan mode: no cluster; outputs, a job summary and (on a pull request) the comment. */
export async function run(ctx: ModeContext): Promise<void> {
  const { host } = ctx;
  const out = await host.group('Plan', async () => plan(await planRequestOf(ctx, 'plan', sequenceFromContext(ctx))));
  if (out.packages.length === 0) for (const l of nothingChanged(out)) host.info(l.trim());
  for (const p of out.packages) {
    if (p.verdict === 'error') host.info(`${p.name}/${p.version}: not planned: ${p.reason}`);
    else host.info(`${p.name}/${p.version}: ${p.refName} -> ${p.targetRefName} ${p.devVersion} (${p.plan?.bundleImage})`);
  }
  annotateProblems(ctx, out.problems);
  writePlanOutputs(ctx, out);
  const { publishReport } = await import('../report/publish.js');
  await publishReport({ results: out.packages, ctx, ...(out.packages.length === 0 ? { nothing: nothingChanged(out) } : {}) });
  const summary = errorSummary(out.problems);
  if (summary) throw new DevpkgError(summary);
}

export function writePlanOutputs(ctx: Pick<ModeContext, 'host'>, out: PlanOutput): void {
  const packages = out.packages.map((p) => packageSummary(p));
  ctx.host.setOutput('packages', JSON.stringify(packages));
  ctx.host.setOutput('matrix', matrixOf(out.packages));
  ctx.host.setOutput('removed', JSON.stringify(out.removed));
  ctx.host.setOutput('problems', JSON.stringify(out.problems));
}

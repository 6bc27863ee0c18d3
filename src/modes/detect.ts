import { nothingChanged, plan } from '../pipeline/plan.js';
import { planRequestOf } from '../pipeline/request.js';
import { sequenceFromContext } from '../pipeline/selection.js';
import { annotateProblems } from '../pipeline/problems.js';
import type { ModeContext } from '../pipeline/context.js';

/**
 * Detect mode: the changed package versions as outputs, nothing else. The packages are those plan
 * mode plans, read and checked as it reads and checks them (one request, one resolution).
 */
export async function run(ctx: ModeContext): Promise<void> {
  const { host } = ctx;
  const out = await plan(await planRequestOf(ctx, 'detect', sequenceFromContext(ctx)));
  const packages = out.refs.map((r) => ({ name: r.name, version: r.version, path: r.path }));
  for (const p of packages) host.info(`changed: ${p.name}/${p.version}`);
  for (const r of out.removed) host.info(`removed (not tested): ${r.name}/${r.version}`);
  if (packages.length === 0) for (const l of nothingChanged(out)) host.info(l.trim());
  host.setOutput('packages', JSON.stringify(packages));
  host.setOutput('matrix', JSON.stringify({ include: packages.map((p) => ({ package: `${p.name}/${p.version}`, ...p })) }));
  host.setOutput('removed', JSON.stringify(out.removed));
  // Problems are annotations and an output; detect itself does not fail on them, so the matrix
  // legs of the good packages still run (the leg of a broken one reports its error).
  annotateProblems(ctx, out.problems);
  host.setOutput('problems', JSON.stringify(out.problems));
  host.setOutput('result', packages.length > 0 ? 'success' : 'skipped');
}

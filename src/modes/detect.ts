import path from 'node:path';
import { resolveSelection } from '../pipeline/plan.js';
import { selectionFromContext, sequenceFromContext } from '../pipeline/selection.js';
import { checkVersions } from '../pipeline/check.js';
import { repoOf } from '../pipeline/repo.js';
import { commitTree, workTree } from '../layouts/index.js';
import { Git } from '../tools/git.js';
import { annotateProblems } from '../pipeline/problems.js';
import type { ModeContext } from '../pipeline/context.js';

/** Detect mode: the changed package versions as outputs, nothing else. */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host } = ctx;
  const root = path.resolve(ctx.github.workspace, inputs.workingDirectory);
  const { layouts } = repoOf(inputs, root);
  const sel = await resolveSelection({
    root,
    packagesDir: inputs.packagesDir,
    layouts,
    selection: selectionFromContext(ctx),
    registry: inputs.registry,
    refName: inputs.refName,
    seq: sequenceFromContext(ctx),
    ignore: inputs.ignore,
    exec: ctx.exec,
    log: (m) => host.info(m),
  });
  const packages = sel.refs.map((r) => ({ name: r.name, version: r.version, path: r.path }));
  for (const p of packages) host.info(`changed: ${p.name}/${p.version}`);
  for (const r of sel.removed) host.info(`removed (not tested): ${r.name}/${r.version}`);
  host.setOutput('packages', JSON.stringify(packages));
  host.setOutput('matrix', JSON.stringify({ include: packages.map((p) => ({ package: `${p.name}/${p.version}`, ...p })) }));
  host.setOutput('removed', JSON.stringify(sel.removed));
  // Problems are annotations and an output; detect itself does not fail on them, so the matrix
  // legs of the good packages still run (the leg of a broken one reports its error).
  const problems = await checkVersions(layouts, sel.refs, sel.head ? commitTree(await Git.create(root, ctx.exec), sel.head) : workTree(root));
  annotateProblems(ctx, problems);
  host.setOutput('problems', JSON.stringify(problems));
  host.setOutput('result', packages.length > 0 ? 'success' : 'skipped');
}

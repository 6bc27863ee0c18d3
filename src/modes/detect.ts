import path from 'node:path';
import { resolveSelection } from '../pipeline/plan.js';
import { selectionFromContext, sequenceFromContext } from './selection.js';
import type { ModeContext } from './types.js';

/** Detect mode: the changed package versions as outputs, nothing else. */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host } = ctx;
  const sel = await resolveSelection({
    root: path.resolve(ctx.github.workspace, inputs.workingDirectory),
    packagesDir: inputs.packagesDir,
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
  host.setOutput('result', packages.length > 0 ? 'success' : 'skipped');
}

import path from 'node:path';
import { loadKubeConfig } from '../cluster/kubeconfig.js';
import { UsageError } from '../errors.js';
import { pullAddressWarning } from '../verify/hints.js';
import type { ModeContext } from '../pipeline/context.js';
import { finishRun, plannedRefs, pushApplyVerify } from '../pipeline/steps.js';
import { imgpkgNeed } from '../tools/carvel.js';
import { checkNeeds } from '../tools/needs.js';
import { parseAssertions } from '../verify/assertions.js';

/** Cluster mode: an existing cluster (input kubeconfig, or the default one). */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host } = ctx;
  if (!inputs.registry) {
    throw new UsageError('mode cluster: input registry is required (HOST[:PORT]/PATH the cluster can pull from)');
  }
  const root = path.resolve(ctx.github.workspace, inputs.workingDirectory);
  // Checked before anything starts, in order: the packages (planned as `devpkg plan` plans them;
  // one that cannot be is its own error result), the files inputs name, then the tools.
  const { planned, unplanned } = await host.group('Changed packages', () => plannedRefs(ctx, root, 'cluster'));
  if (planned.length + unplanned.length === 0) {
    host.info('no package version changed; nothing to verify');
    await finishRun(ctx, []);
    return;
  }
  parseAssertions(inputs.assert);
  const warning = pullAddressWarning(inputs.registry, inputs.clusterRegistry, { push: 'input registry', pull: 'input cluster-registry' });
  if (warning) host.warning(warning);
  const kc = await loadKubeConfig(inputs.kubeconfig ? path.resolve(root, inputs.kubeconfig) : undefined);
  if (!inputs.pushCommand) await checkNeeds('cluster', [imgpkgNeed({ version: inputs.imgpkgVersion, install: ctx.install, log: (m) => host.info(m) })], ctx.install, (m) => host.info(m));
  const refs = planned.map((p) => ({ name: p.name, version: p.version, path: p.plan?.path ?? path.posix.join(inputs.packagesDir, p.name, p.version) }));
  const results = refs.length
    ? await pushApplyVerify(ctx, { kc, root, refs, mode: 'cluster', registry: inputs.registry, clusterRegistry: inputs.clusterRegistry })
    : [];
  await finishRun(ctx, [...results, ...unplanned]);
}

import path from 'node:path';
import { loadKubeConfig } from '../cluster/kubeconfig.js';
import { UsageError } from '../errors.js';
import { pullAddressWarning } from '../verify/hints.js';
import type { ModeContext } from '../pipeline/context.js';
import { changedRefs, finishRun, pushApplyVerify } from '../pipeline/steps.js';

/** Cluster mode: an existing cluster (input kubeconfig, or the default one). */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host } = ctx;
  if (!inputs.registry) {
    throw new UsageError('mode cluster: input registry is required (HOST[:PORT]/PATH the cluster can pull from)');
  }
  const root = path.resolve(ctx.github.workspace, inputs.workingDirectory);
  const refs = await host.group('Changed packages', () => changedRefs(ctx, root));
  if (refs.length === 0) {
    host.info('no package version changed; nothing to verify');
    await finishRun(ctx, []);
    return;
  }
  const warning = pullAddressWarning(inputs.registry, inputs.clusterRegistry, { push: 'input registry', pull: 'input cluster-registry' });
  if (warning) host.warning(warning);
  const kc = await loadKubeConfig(inputs.kubeconfig ? path.resolve(root, inputs.kubeconfig) : undefined);
  const results = await pushApplyVerify(ctx, { kc, root, refs, mode: 'cluster', registry: inputs.registry, clusterRegistry: inputs.clusterRegistry });
  await finishRun(ctx, results);
}

import path from 'node:path';
import { loadKubeConfig, requireKubeconfig } from '../cluster/kubeconfig.js';
import { UsageError } from '../errors.js';
import { ClusterClient } from '../cluster/client.js';
import { REGISTRY_HOSTING, resolvePullRegistry } from '../cluster/registry-hosting.js';
import { Docker } from '../tools/docker.js';
import type { ModeContext } from '../pipeline/context.js';
import { finishRun, plannedRefs, pushApplyVerify, readToolPins, toolNeeds } from '../pipeline/steps.js';
import { checkNeeds } from '../tools/needs.js';
import { failedResult } from '../pipeline/problems.js';
import type { PackageVersionRef } from '../detect/index.js';
import type { KubeConfig } from '@kubernetes/client-node';
import { parseAssertions } from '../verify/assertions.js';
import { clusterReleasedLookup } from '../cluster/released.js';
import { parseRefNameMap } from '../packages/refname.js';
import { repoOfRun } from '../pipeline/request.js';
import { sequenceFromContext } from '../pipeline/selection.js';
import { parsePackageInstallRef } from '../verify/index.js';

/** Cluster mode: an existing cluster (input kubeconfig, or the default one). */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host } = ctx;
  if (!inputs.registry) {
    throw new UsageError('mode cluster: input registry is required (HOST[:PORT]/PATH the cluster can pull from)');
  }
  const root = path.resolve(ctx.github.workspace, inputs.workingDirectory);
  // The dev sequence, read once (outside GitHub, the clock): the plan and the dev run agree.
  const seq = sequenceFromContext(ctx);
  // A kctrl package whose released version neither released-version nor a git tag gives takes
  // it from the cluster's Packages of its refName (read only then, once per refName).
  const kubeconfigPath = inputs.kubeconfig ? path.resolve(root, inputs.kubeconfig) : undefined;
  // The tool releases asked for, resolved first: a version without its sha256 is a usage error now.
  const tools = await readToolPins(ctx);
  // No kubeconfig anywhere is said now, before git, a registry or the cluster is asked anything.
  requireKubeconfig(kubeconfigPath, 'input kubeconfig');
  await repoOfRun(ctx, {
    clusterReleased: clusterReleasedLookup({
      client: async () => ClusterClient.create(await loadKubeConfig(kubeconfigPath, 'input kubeconfig')),
      refNames: parseRefNameMap(inputs.refName),
      ...(inputs.packageInstall ? { packageInstall: parsePackageInstallRef(inputs.packageInstall, 'input package-install') } : {}),
    }),
  });
  // Checked before anything starts, in order: the packages (planned as `devpkg plan` plans them;
  // one that cannot be is its own error result), the files inputs name, then the tools.
  const { planned, refs, unplanned, tools: layoutTools, nothing } = await host.group('Changed packages', () => plannedRefs(ctx, 'cluster', seq));
  // imgpkg, kbld for lock-images, and what the planned packages' layouts build with (ytt, kbld).
  const needs = toolNeeds(ctx, tools, layoutTools);
  if (planned.length + unplanned.length === 0) {
    host.info('no package version changed; nothing to verify');
    await finishRun(ctx, [], nothing);
    return;
  }
  const assertions = parseAssertions(inputs.assert);
  const plannedOf = (ref: PackageVersionRef) => planned.find((p) => p.name === ref.name && p.version === ref.version);
  // What fails before the first push (the tools, the kubeconfig, the cluster's registry) fails
  // every planned package, each with its result, and the report is written (never a stale one).
  let setup: { kc: KubeConfig; clusterRegistry: Awaited<ReturnType<typeof resolvePullRegistry>>['clusterRegistry'] } | undefined;
  try {
    const kc = await loadKubeConfig(kubeconfigPath, 'input kubeconfig');
    if (needs.length) await host.group('Tools', () => checkNeeds('cluster', needs, ctx.install, (m) => host.info(m)));
    if (refs.length) {
      // Pushing to localhost without cluster-registry: the cluster's local registry says where it pulls from.
      const client = await ClusterClient.create(kc);
      const pull = await resolvePullRegistry(inputs.registry, inputs.clusterRegistry, {
        readHosting: () => client.readConfigMapKey(REGISTRY_HOSTING.namespace, REGISTRY_HOSTING.name, REGISTRY_HOSTING.key),
        docker: () => Docker.create(ctx.exec),
        nodes: () => client.nodeNames(),
        names: { push: 'input registry', pull: 'input cluster-registry' },
        log: (m) => host.info(m),
      });
      if (pull.warning) host.warning(pull.warning);
      setup = { kc, clusterRegistry: pull.clusterRegistry };
    }
  } catch (err) {
    host.error(`cluster mode setup failed: ${(err as Error).message}`);
    const failed = refs.map((ref) => failedResult(ctx, ref, err, 'cluster', { prefix: 'cluster setup failed', quiet: true, planned: plannedOf(ref) }));
    await finishRun(ctx, [...failed, ...unplanned]);
    return;
  }
  const results = setup
    ? await pushApplyVerify(ctx, { kc: setup.kc, root, refs, mode: 'cluster', registry: inputs.registry, clusterRegistry: setup.clusterRegistry, seq, assertions })
    : [];
  await finishRun(ctx, [...results, ...unplanned]);
}

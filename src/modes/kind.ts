import path from 'node:path';
import type { Registry } from '../bundle/reference.js';
import { installBaseline } from '../cluster/baseline.js';
import { ClusterClient } from '../cluster/client.js';
import { checkKindFiles, createKindCluster, dockerNeed, kindNeed, normalizeReleaseVersion, SetupError, type KindCluster } from '../cluster/kind.js';
import { loadKubeConfig } from '../cluster/kubeconfig.js';
import { CleanupList } from '../cleanup-list.js';
import { parseRefNameMap, targetRefName } from '../packages/refname.js';
import type { PackageResult, Phase } from '../results.js';
import { ensureImgpkg, finishRun, plannedRefs, pushApplyVerify, readToolPins, toolNeeds } from '../pipeline/steps.js';
import { checkNeeds } from '../tools/needs.js';
import { parseAssertions } from '../verify/assertions.js';
import type { PackageVersionRef } from '../detect/index.js';
import { failedResult, interruptedResult, loadForMode } from '../pipeline/problems.js';
import type { ModeContext } from '../pipeline/context.js';

/** A kind cluster name for this run: short, lowercase, unique per run attempt. */
export function kindClusterName(runId: string | number, attempt: number): string {
  const id = String(runId || Date.now().toString(36)).toLowerCase().replace(/[^a-z0-9]/g, '').slice(-12);
  return `devpkg-${id}-${attempt || 1}`;
}

/**
 * Kind mode: an ephemeral kind cluster with a local registry and kapp-controller; a baseline of
 * the released version installed the way the addons manager would; then the dev Package; verify.
 * Everything created is recorded for the post step first. A setup failure (kind, docker, the
 * cluster, the registry, kapp-controller) still reports: an `error` result per package naming the
 * step, results.json, the summary and the comment.
 */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host, github } = ctx;
  const root = path.resolve(github.workspace, inputs.workingDirectory);
  // Everything is checked before anything starts, in this order: the inputs (parseInputs), the
  // packages (planned as `devpkg plan` plans them), the files the inputs name, then every tool
  // and daemon, all that is missing named at once. Nothing is created before the last check.
  if (inputs.kappControllerVersion) normalizeReleaseVersion(inputs.kappControllerVersion, 'kapp-controller-version');
  const tools = await readToolPins(ctx);
  // The releases asked for, resolved now: a version without its sha256 is refused before any work.
  const baseNeeds = [
    dockerNeed(ctx.exec),
    kindNeed({ version: tools.kind?.version, sha256: tools.kind?.sha256, sha256From: tools.kind?.sha256From, exec: ctx.exec, install: ctx.install, log: (m) => host.info(m) }),
  ];
  const { planned, refs, unplanned, tools: layoutTools, nothing } = await host.group('Changed packages', () => plannedRefs(ctx, 'kind'));
  // imgpkg, kbld for lock-images, and what the planned packages' layouts build with (ytt, kbld).
  const needs = [...baseNeeds, ...toolNeeds(ctx, tools, layoutTools)];
  if (planned.length + unplanned.length === 0) {
    host.info('no package version changed; nothing to verify');
    await finishRun(ctx, [], nothing);
    return;
  }
  await checkKindFiles({ kindConfig: inputs.kindConfig || undefined, kappControllerManifest: inputs.kappControllerManifest || undefined, kappControllerSha256: inputs.kappControllerSha256 || undefined, cwd: root });
  parseAssertions(inputs.assert);
  // The local registry needs no credentials: whatever was given is never sent (issue 18).
  if (inputs.registryUsername || inputs.registryPassword) {
    host.warning('mode kind pushes only to the local registry it creates: registry-username/registry-password are ignored and sent nowhere');
  }
  const kctx: ModeContext = { ...ctx, inputs: { ...inputs, registryUsername: '', registryPassword: '' } };
  const plannedOf = (ref: PackageVersionRef) => planned.find((p) => p.name === ref.name && p.version === ref.version);
  const setupFailed = async (err: unknown, phases: Phase[]) => {
    const step = err instanceof SetupError ? err.step : 'setup';
    host.error(`kind mode setup failed${err instanceof SetupError ? ` at ${step}` : ''}: ${(err as Error).message}`);
    const results = refs.map((ref) => failedResult(kctx, ref, err, 'kind', { prefix: 'kind setup failed', phases: [...phases], quiet: true, planned: plannedOf(ref) }));
    await finishRun(kctx, [...results, ...unplanned]);
  };
  try {
    await host.group('Tools', () =>
      checkNeeds('kind', needs, ctx.install, (m) => host.info(m)),
    );
  } catch (err) {
    await setupFailed(err, []);
    return;
  }
  if (refs.length === 0) {
    await finishRun(ctx, unplanned);
    return;
  }
  const cleanup = new CleanupList(host);
  const phases: Phase[] = [];
  const mark = (name: string, at: string) => phases.push({ name, seenAt: at });
  let cluster: KindCluster;
  try {
    cluster = await host.group('kind cluster, registry and kapp-controller', async () => {
      try {
        await ensureImgpkg(kctx);
      } catch (err) {
        throw new SetupError('imgpkg', err);
      }
      return createKindCluster({
        exec: ctx.exec,
        cleanup,
        name: kindClusterName(github.runId, github.runAttempt),
        kindVersion: tools.kind?.version,
        kindSha256: tools.kind?.sha256,
        kindSha256From: tools.kind?.sha256From,
        nodeImage: inputs.kindNodeImage || undefined,
        kindConfig: inputs.kindConfig || undefined,
        registryImage: inputs.registryImage || undefined,
        kappControllerVersion: inputs.kappControllerVersion || undefined,
        kappControllerManifest: inputs.kappControllerManifest || undefined,
        kappControllerSha256: inputs.kappControllerSha256 || undefined,
        install: ctx.install,
        cwd: root,
        log: (m) => host.info(m),
        onPhase: mark,
      });
    });
  } catch (err) {
    // A Ctrl-C in a terminal reaches kind create too; its failure is then the signal's doing.
    if (ctx.signal?.aborted) {
      await finishRun(kctx, [...refs.map((ref) => interruptedResult(kctx, ref, 'kind', ctx.signal!, 'while the kind cluster was set up; nothing was applied', { phases: [...phases], planned: plannedOf(ref) })), ...unplanned]);
      return;
    }
    await setupFailed(err, phases);
    return;
  }
  const kc = await loadKubeConfig(cluster.kubeconfig);
  const client = await ClusterClient.create(kc);
  // Pushed from here to the registry's published port; pulled by the nodes at its kind-network address.
  const registry: Registry = { host: cluster.registry.pushHost, path: 'devpkg' };
  const clusterRegistry: Registry = { host: cluster.registry.clusterHost, path: '' };
  const refNames = parseRefNameMap(inputs.refName);
  const baseRef = inputs.baseRef || github.baseSha || undefined;

  const installs = new Map<string, { namespace: string; name: string }>();
  const failed: PackageResult[] = [];
  for (const ref of refs) {
    if (ctx.signal?.aborted) {
      failed.push(interruptedResult(kctx, ref, 'kind', ctx.signal, 'before its baseline was installed; nothing was applied for it', { phases: [...phases], planned: plannedOf(ref) }));
      continue;
    }
    await host.group(`Baseline ${ref.name}/${ref.version}`, async () => {
      try {
        const loaded = await loadForMode(kctx, ref, baseRef);
        const refName = targetRefName(refNames, loaded.pkg.pkg.spec.refName, refs.length);
        const b = await installBaseline({
          client,
          kc,
          exec: ctx.exec,
          root,
          loaded,
          baseRef,
          refName,
          registry,
          clusterRegistry,
          pushCommand: inputs.pushCommand || undefined,
          pushTimeoutMs: inputs.pushTimeoutMs,
          timeoutMs: inputs.timeoutMs,
          signal: ctx.signal,
          scratch: cluster.dir,
          log: (m) => host.info(m),
        });
        installs.set(ref.name, { namespace: b.namespace, name: b.name });
        if (b.source !== 'none') mark(`baseline ${ref.name} ${b.releasedVersion}`, b.installedAt);
      } catch (err) {
        if (ctx.signal?.aborted) failed.push(interruptedResult(kctx, ref, 'kind', ctx.signal, 'while its baseline was installed; the dev Package was not applied', { phases: [...phases], planned: plannedOf(ref) }));
        else failed.push(failedResult(kctx, ref, err, 'kind', { prefix: 'baseline', phases: [...phases], planned: plannedOf(ref) }));
      }
    });
  }
  const ok = refs.filter((r) => installs.has(r.name));
  const results = ok.length
    ? await pushApplyVerify(kctx, { kc, root, refs: ok, mode: 'kind', registry, clusterRegistry, packageInstalls: installs, phases: [...phases], scratch: cluster.dir })
    : [];
  await finishRun(kctx, [...results, ...failed, ...unplanned]);
}

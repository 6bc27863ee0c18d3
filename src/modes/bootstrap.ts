import path from 'node:path';
import { checkHost, hostRefusal, readHostFacts } from '../bootstrap/host.js';
import { bootstrapFolders, planBootstrapDev, runBootstrap } from '../bootstrap/run.js';
import { CleanupList } from '../cleanup-list.js';
import { InterruptedError, UsageError } from '../errors.js';
import type { Problem } from '../packages/problems.js';
import { parseRefNameMap, targetRefName } from '../packages/refname.js';
import { tanzuPaths } from '../providers/paths.js';
import { ensureTanzuCli } from '../providers/tanzu-cli.js';
import { ensureYtt } from '../tools/install.js';
import { checkPin, hostPlatform } from '../tools/releases.js';
import { renderResultText } from '../verify/render.js';
import { parseAssertions } from '../verify/assertions.js';
import type { PackageResult } from '../results.js';
import { changedRefs, finishRun, readToolPins } from '../pipeline/steps.js';
import { sequenceFromContext } from '../pipeline/selection.js';
import { failedResult, loadForMode } from '../pipeline/problems.js';
import type { ModeContext } from '../pipeline/context.js';

/**
 * Bootstrap mode: a tanzu management cluster on docker with the dev Package injected for all
 * three phases; verdict after phase 3. One package per run (a management cluster per package;
 * use a matrix for several). The post step deletes the cluster and restores the providers folder.
 */
export async function run(ctx: ModeContext): Promise<void> {
  const { inputs, host, github } = ctx;
  const root = path.resolve(github.workspace, inputs.workingDirectory);
  // The dev sequence, read once (outside GitHub, the clock): the plan, the early check and the run agree.
  const seq = sequenceFromContext(ctx);
  if (!inputs.registry) throw new UsageError('mode bootstrap: input registry is required (HOST[:PORT]/PATH the new cluster can pull from)');
  if (!inputs.clusterConfig) throw new UsageError('mode bootstrap: input cluster-config is required (the management cluster config file, with CLUSTER_NAME)');
  const tools = await readToolPins(ctx);
  // The releases asked for, checked before any work: a version without its sha256 is a usage error.
  checkPin('ytt', tools.ytt, hostPlatform());
  if (!inputs.pushCommand) checkPin('imgpkg', tools.imgpkg, hostPlatform());
  if (inputs.lockImages) checkPin('kbld', tools.kbld, hostPlatform());
  const { refs, nothing } = await host.group('Changed packages', () => changedRefs(ctx, 'bootstrap', seq));
  if (refs.length === 0) {
    host.info('no package version changed; nothing to verify');
    await finishRun(ctx, [], nothing);
    return;
  }
  if (refs.length > 1) {
    throw new UsageError(
      `mode bootstrap verifies one package per management cluster, but ${refs.length} changed (${refs.map((r) => `${r.name}/${r.version}`).join(', ')}); ` +
        'set input packages to one NAME/VERSION, or use the detect mode matrix',
    );
  }
  const ref = refs[0]!;
  // A bad assert input is refused before the host is checked or anything is fetched or made.
  const assertions = parseAssertions(inputs.assert);
  if (inputs.hostCheck) {
    const problems = await host.group('Can this runner bootstrap?', async () => checkHost(await readHostFacts(ctx.exec)));
    if (problems.length) throw new UsageError(hostRefusal(problems, 'host-check: false'));
  }
  // A dev-version that would lose is refused before ytt or the tanzu CLI is fetched: its error
  // result is the run's (a package the mode cannot take is left to the full run below).
  if (inputs.devVersion) {
    try {
      const early = await loadForMode(ctx, ref);
      if (early.bootstrap) {
        await planBootstrapDev({ loaded: early, seq, devVersion: inputs.devVersion, registry: inputs.registry });
      }
    } catch (err) {
      const result = failedResult(ctx, ref, err, 'bootstrap');
      host.info(renderResultText(result));
      await finishRun(ctx, [result]);
      return;
    }
  }
  const yttPath = await host.group('ytt', () => ensureYtt({ pin: tools.ytt, env: ctx.env, log: (m) => host.info(m), install: ctx.install }));
  const paths = tanzuPaths(inputs.tanzuDir || undefined, ctx.env, root);
  const tanzuPath = await host.group('tanzu CLI', () =>
    ensureTanzuCli({
      path: inputs.tanzuCli || undefined,
      url: inputs.tanzuCliUrl || undefined,
      sha256: inputs.tanzuCliSha256,
      env: ctx.env,
      cwd: root,
      home: paths.home,
      exec: ctx.exec,
      log: (m) => host.info(m),
    }),
  );
  const cleanup = new CleanupList(host);
  const workDir = path.join(ctx.env.RUNNER_TEMP || path.join(root, '.devpkg'), 'devpkg-bootstrap');
  let result: PackageResult;
  let problems: Problem[] = [];
  try {
    const loaded = await loadForMode(ctx, ref);
    problems = loaded.problems;
    // Phase 1 syncs the version folder's bundle/config into the providers' _ytt_lib: the layout says where it is, or that there is none.
    const folders = bootstrapFolders(loaded, root);
    const refName = targetRefName(parseRefNameMap(inputs.refName), loaded.pkg.pkg.spec.refName, 1);
    if (inputs.registryPassword) host.setSecret(inputs.registryPassword);
    const out = await host.group(`Bootstrap a management cluster with ${ref.name}/${ref.version}`, () =>
      runBootstrap({
        loaded,
        folders,
        refName,
        addonType: inputs.addonType || undefined,
        registry: inputs.registry,
        credentials: inputs.registryUsername && inputs.registryPassword ? { username: inputs.registryUsername, password: inputs.registryPassword } : undefined,
        pushCommand: inputs.pushCommand || undefined,
        pushTimeoutMs: inputs.pushTimeoutMs,
        lockImages: inputs.lockImages,
        tools,
        install: ctx.install,
        devVersion: inputs.devVersion || undefined,
        seq,
        tanzuPath,
        yttPath,
        paths,
        clusterConfig: path.resolve(root, inputs.clusterConfig),
        ...(inputs.imageRepository ? { imageRepository: inputs.imageRepository } : {}),
        bootstrapTimeoutMs: inputs.bootstrapTimeoutMs,
        timeoutMs: inputs.timeoutMs,
        settleMs: inputs.settleMs,
        assertions,
        workDir,
        cleanup,
        exec: ctx.exec,
        // The runner cancelling the job: the create stops, the result is interrupted; post cleans up.
        signal: ctx.signal,
        log: (m) => host.info(m),
        warn: (m) => host.warning(m),
      }),
    );
    result = problems.length ? { ...out.result!, problems } : out.result!;
  } catch (err) {
    // A push the signal stopped is `interrupted`, said once (the runner cancelled the job), not an error.
    result = err instanceof InterruptedError ? { ...failedResult(ctx, ref, err, 'bootstrap', { problems, quiet: true }), verdict: 'interrupted' } : failedResult(ctx, ref, err, 'bootstrap', { problems });
  }
  host.info(renderResultText(result));
  await finishRun(ctx, [result]);
}

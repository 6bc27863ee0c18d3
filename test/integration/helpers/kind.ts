// The kind harness (test/harness/kind.sh) from tests: a private dockerd with the isolation rules
// in force, and the node, registry and kapp-controller images devpkg's kind mode runs on.
// The integration tier's globalSetup builds its pieces (`kind.sh build`); a test file brings the
// engine up with kindHarnessUp() and the tier's globalTeardown brings it down (or the file does,
// with kindHarnessDown()).
import { join } from 'node:path';
import { repoRoot, runTool } from './run.js';
import { parseExportLines } from '../../harness/exports.mjs';

export { parseExportLines };

export const kindScript = join(repoRoot, 'test', 'harness', 'kind.sh');

export interface KindHarness {
  /** unix:///…/docker.sock of the private dockerd. */
  dockerHost: string;
  /** Node image for `kind create cluster --image` (input kind-node-image). */
  nodeImage: string;
  /** Path of a kind config file with this machine's patches (input kind-config). */
  config: string;
  /** Image of the local registry container (input registry-image). */
  registryImage: string;
  /** Path of kapp-controller's rendered release manifest (input kapp-controller-manifest). */
  kappControllerManifest: string;
  /** The image that manifest runs (already in the node image). */
  kappControllerImage: string;
  /** The engine's state directory ($DEVPKG_HARNESS_DIR/kind). */
  state: string;
  /** process.env plus the exports: DOCKER_HOST, and PATH with kind, kubectl, docker, Carvel CLIs first. */
  env: NodeJS.ProcessEnv;
}

const REQUIRED = [
  'DOCKER_HOST',
  'PATH',
  'DEVPKG_KIND_NODE_IMAGE',
  'DEVPKG_KIND_CONFIG',
  'DEVPKG_KIND_REGISTRY_IMAGE',
  'DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST',
  'DEVPKG_KIND_KAPP_CONTROLLER_IMAGE',
  'DEVPKG_KIND_STATE',
] as const;

/** The harness from `kind.sh up`/`env` output; throws naming a missing export. Pure. */
export function kindHarnessFromExports(stdout: string, base: NodeJS.ProcessEnv = process.env): KindHarness {
  const e = parseExportLines(stdout);
  const missing = REQUIRED.filter((k) => !e[k]);
  if (missing.length > 0) {
    throw new Error(`test/harness/kind.sh did not export ${missing.join(', ')}; its stdout was:\n${stdout}`);
  }
  return {
    dockerHost: e.DOCKER_HOST!,
    nodeImage: e.DEVPKG_KIND_NODE_IMAGE!,
    config: e.DEVPKG_KIND_CONFIG!,
    registryImage: e.DEVPKG_KIND_REGISTRY_IMAGE!,
    kappControllerManifest: e.DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST!,
    kappControllerImage: e.DEVPKG_KIND_KAPP_CONTROLLER_IMAGE!,
    state: e.DEVPKG_KIND_STATE!,
    env: { ...base, ...e },
  };
}

/**
 * `kind.sh up` (a no-op printing the same exports when the engine is already up). Only one engine
 * runs per machine: while another harness dir's engine runs, this waits for it to stop, up to
 * DEVPKG_KIND_ENGINE_WAIT seconds (default 1200).
 */
export async function kindHarnessUp(): Promise<KindHarness> {
  const env = { ...process.env, DEVPKG_KIND_ENGINE_WAIT: process.env.DEVPKG_KIND_ENGINE_WAIT ?? '1200' };
  const r = await runTool('bash', [kindScript, 'up'], { cwd: repoRoot, env, timeoutMs: 1_800_000 });
  return kindHarnessFromExports(r.stdout);
}

/** `kind.sh status`: is this harness dir's engine up with its isolation rules in force? */
export async function kindHarnessIsUp(): Promise<boolean> {
  const r = await runTool('bash', [kindScript, 'status'], { cwd: repoRoot, allowFail: true });
  return r.code === 0;
}

/** `kind.sh down`: nothing of the engine is left afterwards. */
export async function kindHarnessDown(): Promise<void> {
  await runTool('bash', [kindScript, 'down'], { cwd: repoRoot, timeoutMs: 300_000 });
}

/**
 * Whether a file that brought the kind engine (or the control plane) up stops it at its end.
 * Under scripts/test-lanes.mjs (`lane` set: DEVPKG_HARNESS_LANE) the tier owns them: it brings the
 * engine up before its files, checks it whole before and after them, and stops what it started; a
 * file that stopped one there would pull it from under the file beside it. Alone (a plain jest
 * run), the file that started it stops it. Pure.
 */
export function stopsAtEnd(o: { startedHere: boolean; lane: string | undefined }): boolean {
  return o.startedHere && !o.lane;
}

/** stopsAtEnd for this process: its lane is DEVPKG_HARNESS_LANE, set by scripts/test-lanes.mjs. */
export function stopsAtEndHere(startedHere: boolean): boolean {
  return stopsAtEnd({ startedHere, lane: process.env.DEVPKG_HARNESS_LANE || undefined });
}

/**
 * The engine for one test file: up (kindHarnessUp), and `release()` for its afterAll, which stops
 * it when stopsAtEnd says so.
 */
export async function kindHarnessForFile(): Promise<{ kh: KindHarness; release: () => Promise<void> }> {
  const startedHere = !(await kindHarnessIsUp());
  const kh = await kindHarnessUp();
  const stop = stopsAtEndHere(startedHere);
  return { kh, release: async () => void (stop && (await kindHarnessDown())) };
}

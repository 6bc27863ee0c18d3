// Kind mode in the workflow tier: the kind harness's pieces (node image, kind config, registry
// image, kapp-controller manifest) handed to a workflow's devpkg step as the inputs users on a
// mirror set, the jobs' environment on the harness's engine, and what a run could leave on it.
// Used by test/workflows/kind.test.ts and bench/act-kind.bench.ts (the same check, timed).
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { KindHarness } from '../../integration/helpers/kind.js';
import type { World } from './world.js';

/** The machine's kind inputs as `with:` lines at `indent`. */
export function machineInputs(kh: KindHarness, indent: string): string {
  return [
    `kind-node-image: ${kh.nodeImage}`,
    `kind-config: ${kh.config}`,
    `registry-image: ${kh.registryImage}`,
    `kapp-controller-manifest: ${kh.kappControllerManifest}`,
  ].map((l) => `${indent}${l}\n`).join('');
}

/** The same pieces as `devpkg kind` flags. */
export function machineFlags(kh: KindHarness): string[] {
  return ['--kind-node-image', kh.nodeImage, '--kind-config', kh.config, '--registry-image', kh.registryImage, '--kapp-controller-manifest', kh.kappControllerManifest];
}

/** Adds the machine inputs after `anchor` (a `with:` line of the devpkg step), keeping its indent. */
export function withMachineInputs(kh: KindHarness, text: string, anchor: RegExp): string {
  const m = anchor.exec(text);
  if (!m) throw new Error(`no ${anchor} in the workflow`);
  const indent = /^( *)/.exec(m[0])![1]!;
  return text.replace(anchor, `${m[0]}\n${machineInputs(kh, indent)}`.replace(/\n$/, ''));
}

/** The jobs' environment: the harness's PATH (kind, kubectl, docker, Carvel CLIs) after Node 24, its DOCKER_HOST. */
export function kindEnv(kh: KindHarness, w: World): { path: string; env: Record<string, string> } {
  return { path: `${join(w.nodes['24']!, '..')}:${kh.env.PATH}`, env: { DOCKER_HOST: kh.dockerHost } };
}

/**
 * What kind mode could leave behind on the engine: clusters and containers, those whose names
 * `own` matches (the engine is shared with another file of the tier; scripts/test-lanes.mjs checks
 * it whole before and after the tier).
 */
export function leftovers(kh: KindHarness, own: RegExp): { clusters: string[]; containers: string[] } {
  const env = kh.env;
  const clusters = execFileSync('kind', ['get', 'clusters'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').filter(Boolean);
  const containers = execFileSync('docker', ['ps', '-a', '--format', '{{.Names}}'], { env, encoding: 'utf8' }).split('\n').filter(Boolean);
  return { clusters: clusters.filter((n) => own.test(n)), containers: containers.filter((n) => own.test(n)) };
}

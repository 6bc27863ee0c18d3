// Jest global teardown of the integration tier: bring the harness down
// (test/harness/controlplane.sh down), unless DEVPKG_HARNESS_KEEP=1 or the harness was
// already running before the tests started (then it is not ours to stop).
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const controlplane = join(root, 'test', 'harness', 'controlplane.sh');
const kindScript = join(root, 'test', 'harness', 'kind.sh');

export default async function globalTeardown() {
  // A lane of scripts/test-lanes.mjs: the tier stops the harness (and the kind engine) after both lanes.
  if (process.env.DEVPKG_HARNESS_LANE) return;
  if (process.env.DEVPKG_HARNESS_KEEP === '1') {
    process.stderr.write(
      `[harness] DEVPKG_HARNESS_KEEP=1: leaving the harness running in ${process.env.DEVPKG_HARNESS_DIR}; ` +
        'stop it with test/harness/controlplane.sh down\n',
    );
    return;
  }
  let kindError;
  // The kind engine a test file started (helpers/kind.ts), unless it ran before the tests.
  if (existsSync(kindScript) && globalThis.__DEVPKG_KIND_PREEXISTING__ === false) {
    const kind = spawnSync('bash', [kindScript, 'down'], {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
    });
    // Reported after the control plane is down too (below), not instead of it.
    if (kind.status !== 0) kindError = new Error(`test/harness/kind.sh down failed (exit ${kind.status}):\n${kind.stderr}`);
  }
  if (globalThis.__DEVPKG_HARNESS_PREEXISTING__) {
    process.stderr.write('[harness] it was running before the tests; leaving it running\n');
    if (kindError) throw kindError;
    return;
  }
  const result = spawnSync('bash', [controlplane, 'down'], {
    cwd: root,
    env: process.env,
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`test/harness/controlplane.sh down failed (exit ${result.status}):\n${result.stderr}`);
  }
  // Nothing of the run is left in /tmp: the setup log (kept only to explain a failed start)
  // and controlplane.sh's lock file beside the state folder.
  rmSync(join(tmpdir(), 'devpkg-harness-setup.log'), { force: true });
  if (process.env.DEVPKG_HARNESS_DIR) rmSync(`${process.env.DEVPKG_HARNESS_DIR}.lock`, { force: true });
  if (kindError) throw kindError;
}

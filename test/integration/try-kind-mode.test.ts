// The README's "try kind mode", run exactly as the README shows it: each line of its block through
// bash in the repository root, with the kind harness's environment (its Docker engine on
// DOCKER_HOST, its tools on PATH, and the DEVPKG_KIND_* defaults `devpkg kind` reads for the node
// image, kind config, registry image and kapp-controller manifest a machine without an image
// registry needs). The example builds and pushes its own workload image (examples/kind-hello).
// `node dist/cli.js` is the committed bundle: it must be rebuilt (npm run bundle) with the sources.
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PackageResult } from '../../src/results.js';
import { tryKindModeCommands } from '../support/readme.js';
import { kindHarnessUp } from './helpers/kind.js';
import { repoRoot, runTool } from './helpers/run.js';

const T = 1_200_000;
const RUN_NAME = /^devpkg-[0-9a-z]+-\d+(-control-plane|-worker\d*|-registry)?$/;

// The engine may first wait for the machine's one kind engine slot (DEVPKG_KIND_ENGINE_WAIT).
let env: NodeJS.ProcessEnv = {};
beforeAll(async () => {
  env = (await kindHarnessUp()).env;
}, 2_700_000);

test('the README\'s try-kind-mode commands win on the kind harness, and leave nothing behind', async () => {
  const engine = async () => ({
    clusters: (await runTool('kind', ['get', 'clusters'], { env, allowFail: true })).stdout.split('\n').filter((c) => RUN_NAME.test(c.trim())).sort(),
    containers: (await runTool('docker', ['ps', '-a', '--format', '{{.Names}}'], { env })).stdout.split('\n').filter((n) => RUN_NAME.test(n)).sort(),
  });
  // The command writes ./devpkg-results (its default); a folder already there is kept aside.
  const results = join(repoRoot, 'devpkg-results');
  const aside = existsSync(results) ? `${results}.aside-${process.pid}` : undefined;
  if (aside) renameSync(results, aside);
  try {
    const before = await engine();
    for (const line of tryKindModeCommands(repoRoot)) {
      const r = await runTool('bash', ['-c', line], { cwd: repoRoot, env, allowFail: true, timeoutMs: T });
      expect({ line, code: r.code, stderr: r.code === 0 ? '' : r.stderr.slice(-4000) }).toEqual({ line, code: 0, stderr: '' });
      expect(r.stdout).toMatch(/^hello\/1\.0\.0: WON: dev version 1\.0\.1-dev\.\d+ \(\d+\.\d+\.\d+\.\d+:5000\/devpkg\/hello-bundle@sha256:[0-9a-f]{64}\)$/m);
    }
    const doc = JSON.parse(readFileSync(join(results, 'results.json'), 'utf8')) as { results: PackageResult[] };
    expect(doc.results.map((x) => [x.name, x.version, x.verdict, x.releasedVersion])).toEqual([['hello', '1.0.0', 'won', '1.0.0']]);
    const report = readFileSync(join(results, 'report.md'), 'utf8');
    expect(report).not.toMatch(/github\.com/);
    expect(await engine()).toEqual(before);
  } finally {
    rmSync(results, { recursive: true, force: true });
    if (aside) renameSync(aside, results);
  }
}, T);

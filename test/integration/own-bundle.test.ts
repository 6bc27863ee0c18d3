// Issue 35: a package repository's Package whose bundle is referenced by tag is used as it is,
// and the dev Package pins the digest the tag resolves to (cluster mode: the registry's answer).
// Against the harness registry (DEVPKG_TEST_REGISTRY, plain HTTP on loopback), with a bundle
// pushed here by tag with real imgpkg; the digest is checked with skopeo, which devpkg does not use.
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pushBundle } from '../../src/bundle/push.js';
import { parseRepository } from '../../src/bundle/reference.js';
import { ownBundle } from '../../src/cluster/dev.js';
import { repoRoot, runTool } from './helpers/run.js';

const FIXTURE = join(repoRoot, 'test', 'fixtures', 'bundle', 'simple', 'bundle');
let work: string;

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

test('a bundle referenced by tag resolves to the digest the registry holds, pinned as repo@sha256', async () => {
  const registry = process.env.DEVPKG_TEST_REGISTRY;
  if (!registry) throw new Error('DEVPKG_TEST_REGISTRY is not set; run with the integration tier (the harness globalSetup sets it)');
  work = await mkdtemp(join(tmpdir(), 'devpkg-own-bundle-'));
  const bundleDir = join(work, 'bundle');
  await cp(FIXTURE, bundleDir, { recursive: true });
  const run = randomBytes(4).toString('hex');
  // New content per run: the digest is this run's, not one left by an earlier run.
  await writeFile(join(bundleDir, 'config', 'run.yaml'), `#! run ${run}\n`);
  const repository = parseRepository(`${registry}/devpkg-it/own-${run}`);
  await pushBundle({ bundleDir, repository, tag: '1.1.0', plainHttp: true });
  const skopeo = JSON.parse((await runTool('skopeo', ['inspect', '--tls-verify=false', `docker://${registry}/devpkg-it/own-${run}:1.1.0`])).stdout) as { Digest: string };
  const logs: string[] = [];
  const got = await ownBundle(`${registry}/devpkg-it/own-${run}:1.1.0`, { log: (m) => logs.push(m) });
  expect(got).toEqual({ image: `${registry}/devpkg-it/own-${run}@${skopeo.Digest}`, digest: skopeo.Digest, tag: '1.1.0' });
  expect(logs.join('\n')).toContain(`its tag resolves to ${skopeo.Digest}`);
});

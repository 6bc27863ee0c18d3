// The kind harness's pure parts: the exports helpers/kind.ts reads from `kind.sh up`, and the
// capability-clamping runtime wrapper's own Go tests (test/harness/kind/runtime-wrapper).
import { execFileSync } from 'node:child_process';
import { kindHarnessFromExports, parseExportLines } from '../integration/helpers/kind.js';

const EXPORTS = [
  "export DOCKER_HOST='unix:///tmp/h/kind/docker.sock'",
  "export PATH='/tmp/h/kind/bin:/usr/bin'",
  "export DEVPKG_KIND_NODE_IMAGE='devpkg.test/kind/node:v1.37.2-abc'",
  "export DEVPKG_KIND_CONFIG='/tmp/h/kind/kind-config.yaml'",
  "export DEVPKG_KIND_REGISTRY_IMAGE='devpkg.test/kind/registry:2-abc'",
  "export DEVPKG_KIND_KAPP_CONTROLLER_MANIFEST='/tmp/h/kind/kapp-controller-release.yml'",
  "export DEVPKG_KIND_KAPP_CONTROLLER_IMAGE='devpkg.test/kind/kapp-controller:v0.51.0-abc'",
  "export DEVPKG_KIND_STATE='/tmp/h/kind'",
].join('\n');

test('parseExportLines reads single-quoted values with escaped quotes and skips other lines', () => {
  expect(parseExportLines("export A='x'\\''y'\nnoise\nexport B=''\n  export C='a b'  \nexport 1D='z'")).toEqual({
    A: "x'y",
    B: '',
    C: 'a b',
  });
});

test('kindHarnessFromExports maps every export and lays them over the base environment', () => {
  const h = kindHarnessFromExports(EXPORTS, { HOME: '/root', PATH: '/bin' });
  expect(h).toMatchObject({
    dockerHost: 'unix:///tmp/h/kind/docker.sock',
    nodeImage: 'devpkg.test/kind/node:v1.37.2-abc',
    config: '/tmp/h/kind/kind-config.yaml',
    registryImage: 'devpkg.test/kind/registry:2-abc',
    kappControllerManifest: '/tmp/h/kind/kapp-controller-release.yml',
    kappControllerImage: 'devpkg.test/kind/kapp-controller:v0.51.0-abc',
    state: '/tmp/h/kind',
  });
  expect(h.env).toMatchObject({ HOME: '/root', PATH: '/tmp/h/kind/bin:/usr/bin', DOCKER_HOST: 'unix:///tmp/h/kind/docker.sock' });
});

test('kindHarnessFromExports names every export that is missing', () => {
  const partial = EXPORTS.split('\n').filter((l) => !/DEVPKG_KIND_CONFIG|DOCKER_HOST/.test(l)).join('\n');
  expect(() => kindHarnessFromExports(partial)).toThrow(/did not export DOCKER_HOST, DEVPKG_KIND_CONFIG;/);
});

test('the runtime wrapper clamps capabilities and rlimits (its Go tests)', () => {
  const out = execFileSync('go', ['test', '-count=1', './...'], {
    cwd: 'test/harness/kind/runtime-wrapper',
    env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOWORK: 'off' },
    encoding: 'utf8',
  });
  expect(out).toMatch(/^ok\s+devpkg.test\/harness\/runtime-wrapper/m);
}, 180_000);

/**
 * The real TKG controllers of the harness (test/harness/tkg.sh): they are the binaries built from
 * tanzu-framework v0.25.4, every port they listen on is on 127.0.0.1, and stop and down leave
 * nothing running. (The bootstrap tests use them for phases 2 and 3.)
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { runTool } from './helpers/run.js';
import { buildInfoOf, controllerLog, stampedWith, TANZU_FRAMEWORK_COMMIT, tkgPids, tkgScript } from './helpers/tkg-real.js';

const T = 300_000;

/** The local addresses (ip:port) of the TCP sockets a process listens on, from /proc. */
function listening(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      /* closed meanwhile */
    }
  }
  const out: string[] = [];
  for (const file of ['tcp', 'tcp6']) {
    const lines = readFileSync(`/proc/${pid}/net/${file}`, 'utf8').trim().split('\n').slice(1);
    for (const l of lines) {
      const f = l.trim().split(/\s+/);
      if (f[3] !== '0A' || !inodes.has(f[9]!)) continue; // 0A: LISTEN
      const [hex, port] = f[1]!.split(':');
      const ip =
        hex!.length === 8
          ? [0, 1, 2, 3].map((k) => parseInt(hex!.slice(6 - 2 * k, 8 - 2 * k), 16)).join('.')
          : hex === '00000000000000000000000000000000'
            ? '::'
            : hex === '0000000000000000FFFF00000100007F'
              ? '::ffff:127.0.0.1'
              : hex === '00000000000000000000000001000000'
                ? '::1'
                : hex!;
      out.push(`${ip}:${parseInt(port!, 16)}`);
    }
  }
  return out.sort();
}

const tkg = (...args: string[]) => runTool('bash', [tkgScript(), ...args], { timeoutMs: 240_000 });
const registry = () => process.env.DEVPKG_TEST_REGISTRY!;

afterAll(async () => {
  // Leave the harness as the global setup made it (up: CRDs and the marker; nothing running).
  await tkg('stop');
  await tkg('up');
}, T);

test('started, both are the real binaries and listen on 127.0.0.1 only; stop and down leave nothing running', async () => {
  await tkg('start', '--bom-image', `${registry()}/devpkg-it/tkg-harness/tkr-bom`, '--metadata-image', `${registry()}/devpkg-it/tkg-harness/tkr-compatibility`);
  const pids = await tkgPids();
  expect(Object.keys(pids).sort()).toEqual(['tanzu-addons-manager', 'tkr-controller-manager']);

  // The real binaries: tanzu-framework's own main packages and module, v0.25.4 stamped in.
  const addons = await buildInfoOf(pids['tanzu-addons-manager']!);
  expect(addons).toMatch(/\tpath\tgithub\.com\/vmware-tanzu\/tanzu-framework\/addons\n/);
  expect(addons).toMatch(/\t=>\tsigs\.k8s\.io\/cluster-api\tv1\.1\.5\t/);
  // The one module the proxy refuses, built with v1.3.1 in its place (docs/development.md).
  expect(addons).toMatch(/\tdep\tsigs\.k8s\.io\/cluster-api-provider-vsphere\tv1\.3\.5\n\t=>\tsigs\.k8s\.io\/cluster-api-provider-vsphere\tv1\.3\.1\t/);
  const tkr = await buildInfoOf(pids['tkr-controller-manager']!);
  expect(tkr).toMatch(/\tpath\tgithub\.com\/vmware-tanzu\/tanzu-framework\/pkg\/v1\/tkr\n/);
  expect(tkr).toMatch(/\tmod\tgithub\.com\/vmware-tanzu\/tanzu-framework\t/);
  for (const pid of Object.values(pids)) expect(await stampedWith(pid, 'v0.25.4', TANZU_FRAMEWORK_COMMIT)).toBe(true);
  // And each says so itself at start (setupLog "Version", from pkg/v1/buildinfo); the addons
  // manager's klog line carries its PID.
  expect(await controllerLog('tanzu-addons-manager')).toMatch(new RegExp(` ${pids['tanzu-addons-manager']} .*"msg"="Version".*"sha"="${TANZU_FRAMEWORK_COMMIT}" "version"="v0\\.25\\.4"`));
  expect(await controllerLog('tkr-controller-manager')).toMatch(/\tVersion\t\{"version": "v0\.25\.4", "buildDate": "", "sha": "8204f5b0d359512ae81ed94f5c87a59e5e1ed8b9"\}/);

  // Every listening socket of both is on loopback (tkr metrics; addons metrics and health).
  for (const [name, pid] of Object.entries(pids)) {
    const addrs = listening(pid);
    expect({ name, addrs: addrs.filter((a) => !a.startsWith('127.0.0.1:') && !a.startsWith('::ffff:127.0.0.1:')) }).toEqual({ name, addrs: [] });
    expect(addrs.length).toBeGreaterThan(0);
  }

  await tkg('stop');
  for (const pid of Object.values(pids)) expect(existsSync(`/proc/${pid}`)).toBe(false);
  expect(await tkgPids()).toEqual({});

  // down: stopped (again: a second start, then down) and its folder removed.
  await tkg('start', '--bom-image', `${registry()}/devpkg-it/tkg-harness/tkr-bom`, '--metadata-image', `${registry()}/devpkg-it/tkg-harness/tkr-compatibility`);
  const again = await tkgPids();
  expect(Object.keys(again)).toHaveLength(2);
  await tkg('down');
  for (const pid of Object.values(again)) expect(existsSync(`/proc/${pid}`)).toBe(false);
  expect(existsSync(path.join(process.env.DEVPKG_HARNESS_DIR!, 'tkg'))).toBe(false);
}, T);

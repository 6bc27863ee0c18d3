// A kind cluster with a worker on the kind harness: the node image's default CNI (flannel,
// test/harness/kind/default-cni.yaml, applied by kind itself because the harness's kind config no
// longer disables it) gives each node its own pod subnet and routes between the nodes. A pod on
// the worker fetches from a pod on the control-plane node by pod IP, and the server sees the
// client's own pod IP (routed, not masqueraded). Then `devpkg kind` with a kind config that has a
// worker proves examples/kind-hello: its workload and kapp-controller run on the worker, and the
// API server on the control-plane node reaches kapp-controller's packaging API there.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli.js';
import type { PackageResult } from '../../src/results.js';
import { kindHarnessUp, type KindHarness } from './helpers/kind.js';
import { withHarnessLogs } from './helpers/logs.js';
import { repoRoot, runTool } from './helpers/run.js';
import { tarOfOneFile } from './helpers/workload.js';

const T = 1_200_000;
const CLUSTER = 'devpkg-multinode-test';
const PROBE_IMAGE = 'devpkg.test/multinode/probe:1';

let kh: KindHarness | undefined;
const savedEnv = { ...process.env };
const work = mkdtempSync(join(tmpdir(), 'devpkg-kind-multinode-'));
const kubeconfig = join(work, 'kubeconfig');

function h(): KindHarness {
  if (!kh) throw new Error('the kind harness did not come up');
  return kh;
}

/** The harness's kind config (this machine's kubeadm patches) with one control-plane and one worker. */
function twoNodeConfig(extra = ''): string {
  return `${readFileSync(h().config, 'utf8')}nodes:\n- role: control-plane\n- role: worker\n${extra}`;
}

const kubectl = (args: string[], allowFail = false) =>
  runTool('kubectl', ['--kubeconfig', kubeconfig, ...args], { env: h().env, allowFail, timeoutMs: 300_000 });

/**
 * The probe: one static binary, the image's only file. `probe serve TOKEN` answers
 * "TOKEN <the client's address>" on :8080; `probe get URL` fetches it (retrying for a minute) and
 * prints the answer.
 */
function buildProbeTar(): string {
  const dir = join(work, 'probe');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'go.mod'), 'module probe\n\ngo 1.21\n');
  writeFileSync(
    join(dir, 'main.go'),
    `package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	switch os.Args[1] {
	case "serve":
		http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			host, _, _ := net.SplitHostPort(r.RemoteAddr)
			fmt.Fprintf(w, "%s %s\\n", os.Args[2], host)
		})
		panic(http.ListenAndServe(":8080", nil))
	case "get":
		client := http.Client{Timeout: 5 * time.Second}
		var last error
		for i := 0; i < 30; i++ {
			r, err := client.Get(os.Args[2])
			if err == nil {
				body, _ := io.ReadAll(r.Body)
				fmt.Print(string(body))
				return
			}
			last = err
			time.Sleep(2 * time.Second)
		}
		fmt.Fprintln(os.Stderr, last)
		os.Exit(1)
	}
}
`,
  );
  execFileSync('go', ['build', '-trimpath', '-o', join(dir, 'probe'), '.'], { cwd: dir, env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' } });
  const tar = join(work, 'probe.tar');
  writeFileSync(tar, tarOfOneFile('probe', readFileSync(join(dir, 'probe')), 0o755));
  return tar;
}

function probePod(name: string, node: string, args: string[]): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { app: name } },
    spec: {
      nodeName: node,
      restartPolicy: args[0] === 'get' ? 'Never' : 'Always',
      tolerations: [{ operator: 'Exists' }],
      containers: [{ name: 'probe', image: PROBE_IMAGE, imagePullPolicy: 'Never', command: ['/probe', ...args] }],
    },
  });
}

interface NodeInfo {
  metadata: { name: string };
  spec: { podCIDR?: string };
}

/** Whether an IPv4 address lies in a CIDR. Pure. */
function inCidr(ip: string, cidr: string): boolean {
  const n = (a: string) => a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n(ip) / size) === Math.floor(n(base!) / size);
}

beforeAll(async () => {
  // The engine may first wait for the machine's one kind engine slot (DEVPKG_KIND_ENGINE_WAIT).
  kh = await kindHarnessUp();
  Object.assign(process.env, kh.env);
}, 2_700_000);

afterAll(async () => {
  if (kh) await runTool('kind', ['delete', 'cluster', '--name', CLUSTER], { env: kh.env, allowFail: true });
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
  rmSync(work, { recursive: true, force: true });
}, T);

test(
  'kind create cluster with a worker: every node Ready with its own pod subnet; a pod on the worker reaches a pod on the control-plane node by pod IP, unmasqueraded',
  withHarnessLogs(async () => {
    const { env, nodeImage } = h();
    writeFileSync(join(work, 'kind.yaml'), twoNodeConfig());
    const started = Date.now();
    await runTool(
      'kind',
      ['create', 'cluster', '--name', CLUSTER, '--image', nodeImage, '--config', join(work, 'kind.yaml'), '--kubeconfig', kubeconfig, '--wait', '300s'],
      { env, timeoutMs: 500_000 },
    );
    process.stderr.write(`[kind-multinode] kind create cluster (2 nodes, Ready): ${Math.round((Date.now() - started) / 1000)}s\n`);
    try {
      const cp = `${CLUSTER}-control-plane`;
      const worker = `${CLUSTER}-worker`;
      await kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=180s']);
      const nodes = (JSON.parse((await kubectl(['get', 'nodes', '-o', 'json'])).stdout) as { items: NodeInfo[] }).items;
      expect(nodes.map((n) => n.metadata.name).sort()).toEqual([cp, worker]);
      const cidr = Object.fromEntries(nodes.map((n) => [n.metadata.name, n.spec.podCIDR ?? '']));
      expect(cidr[cp]).toMatch(/^10\.244\.\d+\.0\/24$/);
      expect(cidr[worker]).toMatch(/^10\.244\.\d+\.0\/24$/);
      expect(cidr[cp]).not.toBe(cidr[worker]);
      // kind applied the node image's default CNI: flannel runs on both nodes, told the API
      // server's address on the kind network by kind's patch.
      await kubectl(['-n', 'kube-flannel', 'rollout', 'status', 'daemonset/kube-flannel-ds', '--timeout=120s']);
      const endpoint = await kubectl(['-n', 'kube-flannel', 'get', 'daemonset', 'kube-flannel-ds', '-o', 'jsonpath={.spec.template.spec.containers[0].env[?(@.name=="CONTROL_PLANE_ENDPOINT")].value}']);
      expect(endpoint.stdout.trim()).toBe(`${cp}:6443`);
      const restarts = await kubectl(['-n', 'kube-flannel', 'get', 'pods', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}={.status.containerStatuses[*].restartCount} {end}']);
      process.stderr.write(`[kind-multinode] flannel pods' restarts (node=container counts): ${restarts.stdout}\n`);

      // The probe image, loaded into both nodes the way kind users load their images.
      await runTool('docker', ['import', '--change', 'ENTRYPOINT ["/probe"]', buildProbeTar(), PROBE_IMAGE], { env });
      await runTool('kind', ['load', 'docker-image', '--name', CLUSTER, PROBE_IMAGE], { env, timeoutMs: 300_000 });

      await kubectl(['wait', '--for=create', 'serviceaccount/default', '--timeout=60s']);
      writeFileSync(join(work, 'server.json'), probePod('server', cp, ['serve', 'multinode-ok']));
      await kubectl(['apply', '-f', join(work, 'server.json')]);
      await kubectl(['wait', '--for=condition=Ready', 'pod/server', '--timeout=120s']);
      const serverIp = (await kubectl(['get', 'pod', 'server', '-o', 'jsonpath={.status.podIP}'])).stdout.trim();
      expect(inCidr(serverIp, cidr[cp]!)).toBe(true);

      writeFileSync(join(work, 'client.json'), probePod('client', worker, ['get', `http://${serverIp}:8080/`]));
      await kubectl(['apply', '-f', join(work, 'client.json')]);
      const done = await kubectl(['wait', '--for=jsonpath={.status.phase}=Succeeded', 'pod/client', '--timeout=150s'], true);
      const clientIp = (await kubectl(['get', 'pod', 'client', '-o', 'jsonpath={.status.podIP}'])).stdout.trim();
      const logs = (await kubectl(['logs', 'client'], true)).stdout.trim();
      expect({ wait: done.code, logs }).toEqual({ wait: 0, logs: `multinode-ok ${clientIp}` });
      expect(inCidr(clientIp, cidr[worker]!)).toBe(true);
    } catch (err) {
      const diag = await kubectl(['get', 'nodes,pods', '-A', '-o', 'wide'], true);
      const flannel = await kubectl(['-n', 'kube-flannel', 'logs', '-l', 'app=flannel', '--all-containers', '--tail=40', '--prefix'], true);
      if (err instanceof Error) err.message += `\n\n${diag.stdout}${diag.stderr}\n${flannel.stdout}${flannel.stderr}`;
      throw err;
    } finally {
      await runTool('kind', ['delete', 'cluster', '--name', CLUSTER], { env, allowFail: true });
      await runTool('docker', ['rmi', PROBE_IMAGE], { env, allowFail: true });
    }
  }),
  T,
);

test(
  'devpkg kind with a kind config that has a worker: examples/kind-hello wins, its workload and kapp-controller on the worker',
  withHarnessLogs(async () => {
    const config = join(work, 'two-nodes.yaml');
    writeFileSync(config, twoNodeConfig());
    const out = { stdout: '', stderr: '' };
    // The kept cluster's folder (its kubeconfig) goes to a temp folder of this test's own.
    const tmp = mkdtempSync(join(work, 'keep-tmp-'));
    const savedTmp = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    const code = await runCli(
      ['kind', '--repo', 'examples/kind-hello', '--packages', 'hello/1.0.0', '--push-command', `bash ${repoRoot}/examples/kind-hello/hack/push.sh`,
        '--kind-config', config, '--settle', '5s', '--timeout', '6m', '--results-dir', join(work, 'results'), '--keep', '--json'],
      { stdout: (t) => void (out.stdout += t), stderr: (t) => void (out.stderr += t), env: process.env, cwd: repoRoot },
    ).finally(() => (savedTmp === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = savedTmp)));
    const cluster = /--keep: left kind cluster (devpkg-[0-9a-z]+-\d+)/.exec(out.stderr)?.[1];
    try {
      const results = JSON.parse(out.stdout || '[]') as PackageResult[];
      // A package that did not win brings its reason (with --json, stderr holds little else).
      expect({ code, verdicts: results.map((r) => [r.name, r.verdict, r.verdict === 'won' ? '' : r.reason]), stderr: code === 0 ? '' : out.stderr.slice(-4000) }).toEqual({
        code: 0,
        verdicts: [['hello', 'won', '']],
        stderr: '',
      });
      expect(cluster).toBeDefined();
      const kc = join(work, `${cluster}.kubeconfig`);
      writeFileSync(kc, (await runTool('kind', ['get', 'kubeconfig', '--name', cluster!])).stdout);
      const k = (...args: string[]) => runTool('kubectl', ['--kubeconfig', kc, ...args]).then((x) => x.stdout.trim());
      expect((await k('get', 'nodes', '-o', 'jsonpath={.items[*].metadata.name}')).split(' ').sort()).toEqual([`${cluster}-control-plane`, `${cluster}-worker`]);
      expect(await k('get', 'pods', '-n', 'hello', '-l', 'app=hello', '-o', 'jsonpath={.items[*].spec.nodeName}')).toBe(`${cluster}-worker`);
      expect(await k('get', 'pods', '-n', 'kapp-controller', '-o', 'jsonpath={.items[*].spec.nodeName}')).toBe(`${cluster}-worker`);
    } finally {
      if (cluster) {
        await runTool('kind', ['delete', 'cluster', '--name', cluster], { allowFail: true });
        await runTool('docker', ['rm', '-f', '-v', `${cluster}-registry`], { allowFail: true });
        // --keep keeps the run's network too.
        await runTool('docker', ['network', 'rm', cluster], { allowFail: true });
      }
    }
  }),
  T,
);

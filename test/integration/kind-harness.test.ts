// The kind harness itself (test/harness/kind.sh): a real dockerd from Debian, the isolation rules
// in force before any container starts, a real `kind create cluster` on the harness's node image
// coming up Ready, kind's local-registry pattern (a pod pulls through `localhost:<port>` and
// hosts.toml), kapp-controller from its rendered release manifest Available in the cluster, and
// `down` leaving nothing behind. The kind CLI is used directly: devpkg's own kind mode is tested
// elsewhere. The file owns the engine's whole life (it brings it up and down itself).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withHarnessLogs } from './helpers/logs.js';
import { kindHarnessDown, kindHarnessFromExports, kindHarnessIsUp, kindHarnessUp, kindScript, type KindHarness } from './helpers/kind.js';
import { repoRoot, runTool } from './helpers/run.js';

const T = 600_000;
const CLUSTER = 'devpkg-harness-test';

interface HostSnapshot {
  rules: string;
  links: string[];
  ipForward: string;
  /** Paths the engine may create on the host: /lib/modules, dockerd's cgroups. */
  paths: string[];
}

let kh: KindHarness | undefined;
let before: HostSnapshot;
let dockerdPid = 0;
const tmp = mkdtempSync(join(tmpdir(), 'devpkg-kind-harness-'));

async function iptablesDump(): Promise<string> {
  const out: string[] = [];
  for (const cmd of ['iptables', 'ip6tables']) {
    for (const table of ['filter', 'nat', 'mangle', 'raw']) {
      const r = await runTool(cmd, ['-t', table, '-S'], { allowFail: true });
      out.push(`# ${cmd} -t ${table}\n${r.stdout}`);
    }
  }
  return out.join('\n');
}

/**
 * The machine as it was just before dockerd started: the raw `iptables -S` / `ip6tables -S` of
 * every table, the links, dockerd's cgroups and IP forwarding, recorded by `kind.sh up` in
 * $state/net-before while it held the machine's one engine slot (a snapshot taken by this file
 * before `up` would include another harness's engine that `up` waited for).
 */
function recordedSnapshot(state: string): HostSnapshot {
  const dir = join(state, 'net-before');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  const out: string[] = [];
  for (const cmd of ['iptables', 'ip6tables']) {
    for (const table of ['filter', 'nat', 'mangle', 'raw']) out.push(`# ${cmd} -t ${table}\n${read(`${cmd}-${table}`)}`);
  }
  const created = existsSync(join(state, 'created-paths')) ? read('../created-paths').split('\n') : [];
  return {
    rules: out.join('\n'),
    links: read('links').split('\n').filter(Boolean).sort(),
    ipForward: read('ip_forward').trim(),
    paths: [
      ...(existsSync('/lib/modules') && !created.includes('/lib/modules') ? ['/lib/modules'] : []),
      ...read('cgroups').split('\n').filter(Boolean),
    ].sort(),
  };
}

async function snapshot(): Promise<HostSnapshot> {
  const links = (await runTool('ip', ['-o', 'link', 'show'])).stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(': ')[1]!.replace(/@.*/, ''))
    .sort();
  return {
    rules: await iptablesDump(),
    links,
    ipForward: readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim(),
    paths: ['/lib/modules', ...readdirSync('/sys/fs/cgroup').map((h) => `/sys/fs/cgroup/${h}/docker`)]
      .filter((p) => existsSync(p))
      .sort(),
  };
}

function h(): KindHarness {
  if (!kh) throw new Error('the kind harness did not come up (see the first test)');
  return kh;
}

function uplink(routes: string): string {
  const m = / dev (\S+)/.exec(routes);
  if (!m) throw new Error(`no default route: ${routes}`);
  return m[1]!;
}

async function docker(args: string[], allowFail = false) {
  return runTool('docker', args, { env: h().env, allowFail, timeoutMs: 300_000 });
}

async function kubectl(args: string[], allowFail = false) {
  return runTool('kubectl', ['--kubeconfig', join(tmp, 'kubeconfig'), ...args], {
    env: h().env,
    allowFail,
    timeoutMs: 300_000,
  });
}

/** Everything kubectl can tell about why something did not become ready. */
async function clusterDiagnostics(): Promise<string> {
  const parts: string[] = [];
  for (const args of [
    ['get', 'nodes', '-o', 'wide'],
    ['get', 'pods', '-A', '-o', 'wide'],
    ['get', 'events', '-A', '--sort-by=.lastTimestamp'],
  ]) {
    const r = await kubectl(args, true);
    parts.push(`$ kubectl ${args.join(' ')}\n${r.stdout}${r.stderr}`);
  }
  return parts.join('\n');
}

function withDiagnostics(fn: () => Promise<void>): () => Promise<void> {
  return withHarnessLogs(async () => {
    try {
      await fn();
    } catch (err) {
      if (err instanceof Error && kh) err.message += `\n\n${await clusterDiagnostics()}`;
      throw err;
    }
  });
}

beforeAll(async () => {
  // The engine's whole life belongs to this file: start from none.
  if (await kindHarnessIsUp()) await kindHarnessDown();
}, T);

afterAll(async () => {
  if (kh && (await kindHarnessIsUp())) await kindHarnessDown();
  rmSync(tmp, { recursive: true, force: true });
}, T);

test(
  'up starts dockerd with the isolation flags and the DROP rule on the uplink before any container exists',
  withHarnessLogs(async () => {
    kh = await kindHarnessUp();
    before = recordedSnapshot(kh.state);
    dockerdPid = Number(readFileSync(join(kh.state, 'dockerd.pid'), 'utf8').trim());
    const argv = readFileSync(`/proc/${dockerdPid}/cmdline`, 'utf8').split('\0');
    expect(argv[0]).toMatch(/dockerd$/);
    expect(argv).toEqual(expect.arrayContaining(['--ip-forward=false', '--ip-masq=false', '--default-runtime']));
    expect(argv[argv.indexOf('--dns') + 1]).toBe('127.0.0.1');
    expect(argv[argv.indexOf('--host') + 1]).toBe(kh.dockerHost);
    expect(argv[argv.indexOf('--default-runtime') + 1]).toBe('devpkg-runc');

    // The rule is in DOCKER-USER, ahead of dockerd's own RETURN.
    const link = uplink((await runTool('ip', ['-o', 'route', 'show', 'default'])).stdout);
    const chain = (await runTool('iptables', ['-S', 'DOCKER-USER'])).stdout.split('\n').filter((l) => l.startsWith('-A'));
    expect(chain[0]).toMatch(new RegExp(`^-A DOCKER-USER -o ${link} .*-j DROP$`));
    // dockerd left forwarding as it was.
    expect(readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim()).toBe(before.ipForward);

    // Nothing has run in the engine yet; the images are there to run.
    expect((await docker(['ps', '-aq'])).stdout.trim()).toBe('');
    const images = (await docker(['images', '--format', '{{.Repository}}:{{.Tag}}'])).stdout.split('\n');
    expect(images).toEqual(expect.arrayContaining([kh.nodeImage, kh.registryImage]));
    const info = JSON.parse((await docker(['info', '--format', '{{json .}}'])).stdout) as { DefaultRuntime: string };
    expect(info.DefaultRuntime).toBe('devpkg-runc');
  }),
  1_800_000,
);

test(
  'kind create cluster comes up Ready; a pod pulls from the local registry; kapp-controller becomes Available',
  withDiagnostics(async () => {
    const { env, registryImage, nodeImage } = h();
    // kind's local-registry pattern, on a free host port instead of 5001.
    await docker(['run', '-d', '--restart=always', '-p', '127.0.0.1::5000', '--name', 'kind-registry', registryImage]);
    const config = `${readFileSync(h().config, 'utf8')}
containerdConfigPatches:
- |-
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "/etc/containerd/certs.d"
`;
    writeFileSync(join(tmp, 'kind.yaml'), config);
    const started = Date.now();
    await runTool(
      'kind',
      ['create', 'cluster', '--name', CLUSTER, '--image', nodeImage, '--config', join(tmp, 'kind.yaml'),
        '--kubeconfig', join(tmp, 'kubeconfig'), '--wait', '240s'],
      { env, timeoutMs: 400_000 },
    );
    process.stderr.write(`[kind-harness] kind create cluster: ${Math.round((Date.now() - started) / 1000)}s\n`);
    expect((await runTool('kind', ['get', 'clusters'], { env })).stdout.split('\n')).toContain(CLUSTER);
    await kubectl(['wait', '--for=condition=Ready', 'node', '--all', '--timeout=180s']);
    const version = JSON.parse((await kubectl(['version', '-o', 'json'])).stdout) as { serverVersion: { gitVersion: string } };
    expect(version.serverVersion.gitVersion).toBe(readVersion('KUBERNETES_VERSION'));

    // The registry joins the kind network; the node maps localhost:<port> to it. (dockerd 20.10
    // gives an ephemeral published port a new number when the container joins a network: read it
    // only now.)
    await docker(['network', 'connect', 'kind', 'kind-registry']);
    const port = (await docker(['port', 'kind-registry', '5000/tcp'])).stdout.trim().split(':').pop()!;
    const node = `${CLUSTER}-control-plane`;
    const dir = `/etc/containerd/certs.d/localhost:${port}`;
    await docker(['exec', node, 'mkdir', '-p', dir]);
    await docker(['exec', node, 'sh', '-c', `printf '[host."http://kind-registry:5000"]\\n' > '${dir}/hosts.toml'`]);

    // An image pushed from the host through localhost:<port>, pulled by the kubelet the same way.
    const image = `localhost:${port}/devpkg/registry:harness-test`;
    await docker(['tag', registryImage, image]);
    await docker(['push', image]);
    await kubectl(['wait', '--for=create', 'serviceaccount/default', '--timeout=60s']);
    await kubectl(['run', 'pulled', `--image=${image}`, '--image-pull-policy=Always', '--port=5000']);
    await kubectl(['wait', '--for=condition=Ready', 'pod/pulled', '--timeout=180s']);
    const pod = JSON.parse((await kubectl(['get', 'pod', 'pulled', '-o', 'json'])).stdout) as {
      status: { containerStatuses: { image: string; imageID: string }[] };
    };
    const digest = (await docker(['inspect', '--format', '{{index .RepoDigests 0}}', image])).stdout.trim().split('@')[1]!;
    expect(pod.status.containerStatuses[0]!.imageID).toContain(digest);

    // A container on the kind network reaches the registry, and nothing beyond the machine.
    const ok = await docker(['exec', node, 'curl', '-sS', '-m', '10', 'http://kind-registry:5000/v2/'], true);
    expect(ok.code).toBe(0);
    const gateway = /default via (\S+)/.exec((await runTool('ip', ['-o', 'route', 'show', 'default'])).stdout)![1]!;
    const out = await docker(['exec', node, 'curl', '-sS', '-m', '5', `http://${gateway}:80/`], true);
    expect(out.code).not.toBe(0);

    // kapp-controller as users run it: its release manifest, the image already in the node.
    await kubectl(['apply', '-f', h().kappControllerManifest]);
    await kubectl(['-n', 'kapp-controller', 'wait', '--for=condition=Available', 'deployment/kapp-controller', '--timeout=240s']);
    await kubectl(['wait', '--for=condition=Available', 'apiservice/v1alpha1.data.packaging.carvel.dev', '--timeout=120s']);
    const dep = JSON.parse((await kubectl(['-n', 'kapp-controller', 'get', 'deployment', 'kapp-controller', '-o', 'json'])).stdout) as {
      spec: { template: { spec: { containers: { image: string; imagePullPolicy: string }[] } } };
    };
    for (const c of dep.spec.template.spec.containers) {
      expect(c.image).toBe(h().kappControllerImage);
      expect(c.imagePullPolicy).toBe('IfNotPresent');
    }
    // The packaging API answers (served by kapp-controller in the pod).
    await kubectl(['get', 'packages.data.packaging.carvel.dev', '-A']);
  }),
  T,
);

test(
  'down leaves no containers, networks, iptables rules, links, mounts, processes or state',
  withHarnessLogs(async () => {
    const { state } = h();
    await kindHarnessDown();
    expect(existsSync(state)).toBe(false);
    expect(existsSync('/run/devpkg-kind-engine')).toBe(false);
    let alive = true;
    try {
      process.kill(dockerdPid, 0);
    } catch {
      alive = false;
    }
    expect(alive).toBe(false);
    const after = await snapshot();
    expect(after.rules).toBe(before.rules);
    expect(after.links).toEqual(before.links);
    expect(after.ipForward).toBe(before.ipForward);
    expect(after.paths).toEqual(before.paths);
    const mounts = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((l) => l.includes(`${state}/`));
    expect(mounts).toEqual([]);
    expect(processesNaming(`${state}/`)).toEqual([]);
    kh = undefined;
  }),
  T,
);

test(
  'an engine killed with SIGKILL (dockerd, containerd, the shims and the containers: a session whose processes were ended) leaves chains, links and mounts; the next up, from another harness dir, removes them, says so and comes up',
  withHarnessLogs(async () => {
    const first = await kindHarnessUp();
    // A container running, so that there are shims, mounts and a bridge to leave behind.
    await runTool('docker', ['run', '-d', '--name', 'left-behind', first.registryImage], { env: first.env, timeoutMs: 120_000 });
    const killed = killTree(`${first.state}/`);
    expect(killed).toBeGreaterThan(2);
    await gone(`${first.state}/`);
    // What a killed engine leaves: its chain, its mounts, the owner file naming it.
    expect((await runTool('iptables', ['-S', 'DOCKER-USER'], { allowFail: true })).code).toBe(0);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).toContain(`${first.state}/`);
    expect(readFileSync('/run/devpkg-kind-engine', 'utf8')).toContain(first.state);
    // `kind.sh leftovers` (what .ci/run prints after each build stage) names the chain and the link.
    const said = await runTool('bash', [kindScript, 'leftovers'], { cwd: repoRoot });
    expect(said.stderr).toContain('[kind] found: iptables -N DOCKER-USER');
    expect(said.stderr).toMatch(/\[kind\] found: link \d+: docker0/);

    const other = mkdtempSync(join(tmpdir(), 'devpkg-kind-harness-other-'));
    const env = { ...process.env, DEVPKG_HARNESS_DIR: other };
    try {
      const r = await runTool('bash', [kindScript, 'up'], { cwd: repoRoot, env, timeoutMs: 1_800_000 });
      expect(r.stderr).toContain(`a kind engine in ${first.state}`);
      expect(r.stderr).toContain('is gone without being brought down; removing what it left');
      const second = kindHarnessFromExports(r.stdout, env);
      expect(second.state).toBe(join(other, 'kind'));
      expect(existsSync(first.state)).toBe(false);
      expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(`${first.state}/`);
      expect((await runTool('docker', ['ps', '-aq'], { env: second.env })).stdout.trim()).toBe('');
    } finally {
      await runTool('bash', [kindScript, 'down'], { cwd: repoRoot, env, timeoutMs: 300_000 });
      rmSync(other, { recursive: true, force: true });
    }
    const after = await snapshot();
    expect(after.rules).toBe(before.rules);
    expect(after.links).toEqual(before.links);
  }),
  T,
);

/** SIGKILL to every process naming `text` and all their descendants, at once; how many. */
function killTree(text: string): number {
  const parents = new Map<number, number[]>();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const ppid = Number(/^\d+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))![1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(pid)]);
    } catch {
      // exited meanwhile
    }
  }
  const all = new Set<number>(processesNaming(text).map((l) => Number(l.split(':')[0])));
  const queue = [...all];
  while (queue.length) {
    for (const c of parents.get(queue.shift()!) ?? []) {
      if (all.has(c)) continue;
      all.add(c);
      queue.push(c);
    }
  }
  for (const pid of all) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  return all.size;
}

/** Until none of the processes naming `text` runs (a zombie does not), up to 30 s. */
async function gone(text: string): Promise<void> {
  for (let i = 0; i < 60 && processesNaming(text).length > 0; i++) await new Promise((r) => setTimeout(r, 500));
  expect(processesNaming(text)).toEqual([]);
}

/** Command lines of the processes that name `text` in their arguments. */
function processesNaming(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(text)) found.push(`${pid}: ${cmdline}`);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

function readVersion(key: string): string {
  const text = readFileSync(join(repoRoot, 'test', 'harness', 'versions.env'), 'utf8');
  const m = new RegExp(`^${key}=(.*)$`, 'm').exec(text);
  if (!m) throw new Error(`${key} is not in versions.env`);
  return m[1]!;
}

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkHost, memTotal, parseCgroupVersion, readHostFacts, type HostFacts } from './host.js';

const GiB = 1024 ** 3;
const good: HostFacts = { cgroupVersion: 1, cpus: 8, memoryBytes: 16 * GiB, docker: { ok: true, cgroupVersion: 1 } };

describe('checkHost', () => {
  test.each<[string, Partial<HostFacts>, RegExp[]]>([
    ['a self-hosted cgroup v1 runner with 8 CPUs and 16 GiB', {}, []],
    ['exactly the minimum', { cpus: 4, memoryBytes: 6 * GiB }, []],
    ["GitHub's hosted runner for private repositories (cgroup v2, 2 vCPUs, 7 GB)", { cgroupVersion: 2, cpus: 2, memoryBytes: 7e9, docker: { ok: true, cgroupVersion: 2 } }, [/^cgroup v2: the TKG\/TCE 1.x kind node images run only on cgroup v1/, /^2 CPUs: a management cluster on docker needs at least 4$/]],
    ['4 GiB of memory', { memoryBytes: 4 * GiB }, [/^4.0 GiB of memory: a management cluster on docker needs at least 6.0 GiB$/]],
    ['docker reports cgroup v2 although the host looks like v1', { docker: { ok: true, cgroupVersion: 2 } }, [/^cgroup v2/]],
    ['docker says nothing about cgroups: the host decides', { cgroupVersion: 2, docker: { ok: true } }, [/^cgroup v2/]],
    ['no docker daemon', { docker: { ok: false, message: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock' } }, [/^the docker daemon does not answer \(Cannot connect to the Docker daemon at unix:\/\/\/var\/run\/docker.sock\); bootstrap mode runs/]],
  ])('%s', (_what, facts, want) => {
    const got = checkHost({ ...good, ...facts });
    expect(got).toHaveLength(want.length);
    want.forEach((re, i) => expect(got[i]).toMatch(re));
  });
});

test.each([
  ['MemTotal:       16318480 kB\nMemFree: 1 kB\n', 16318480 * 1024],
  ['nothing here', undefined],
])('memTotal(%j)', (text, want) => {
  expect(memTotal(text)).toBe(want);
});

test.each([
  ['1\n', 1],
  ['2', 2],
  ['', undefined],
])('parseCgroupVersion(%j)', (text, want) => {
  expect(parseCgroupVersion(text)).toBe(want);
});

describe('readHostFacts', () => {
  let root: string;
  beforeEach(async () => {
    root = `${await mkdtemp(path.join(os.tmpdir(), 'devpkg-host-'))}/`;
    await mkdir(path.join(root, 'sys/fs/cgroup'), { recursive: true });
    await mkdir(path.join(root, 'proc'), { recursive: true });
    await writeFile(path.join(root, 'proc/meminfo'), 'MemTotal:        8000000 kB\n');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  test('reads cgroup v2 from cgroup.controllers, memory from /proc/meminfo and the daemon from docker info', async () => {
    await writeFile(path.join(root, 'sys/fs/cgroup/cgroup.controllers'), 'cpu memory\n');
    const calls: string[][] = [];
    const f = await readHostFacts(async (cmd, args) => {
      calls.push([cmd, ...args]);
      return { code: 0, stdout: '2\n', stderr: '' };
    }, root);
    expect(calls).toEqual([['docker', 'info', '--format', '{{.CgroupVersion}}']]);
    expect(f).toEqual({ cgroupVersion: 2, cpus: os.availableParallelism(), memoryBytes: 8000000 * 1024, docker: { ok: true, cgroupVersion: 2 } });
  });

  test('cgroup v1 without cgroup.controllers; a daemon that does not answer says why', async () => {
    const f = await readHostFacts(async () => ({ code: 1, stdout: '', stderr: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n' }), root);
    expect(f.cgroupVersion).toBe(1);
    expect(f.docker).toEqual({ ok: false, message: 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' });
  });

  test('no docker on PATH', async () => {
    const f = await readHostFacts(async () => {
      throw new Error('docker is not on PATH');
    }, root);
    expect(f.docker).toEqual({ ok: false, message: 'docker is not on PATH' });
  });
});

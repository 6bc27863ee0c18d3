import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { ensureTanzuCli, pickPluginDir, pickTanzuBinary } from './tanzu-cli.js';

test.each([
  [['/x/v0.28.1/tanzu-core-linux_amd64', '/x/v0.28.1/tanzu-cli-linux_amd64', '/x/install.sh'], '/x/v0.28.1/tanzu-cli-linux_amd64'],
  [['/x/tanzu', '/x/tanzu.sha256'], '/x/tanzu'],
  [['/x/README.md'], undefined],
])('pickTanzuBinary %j', (files, want) => expect(pickTanzuBinary(files)).toBe(want));

test.each([
  [['linux-amd64-default', 'docs'], 'linux-amd64-default'],
  [['default-local'], 'default-local'],
  [['defaults-not', 'bin'], undefined],
])('pickPluginDir %j', (dirs, want) => expect(pickPluginDir(dirs)).toBe(want));

/**
 * A fake tanzu CLI (a shell script, not the real one): appends "HOME argv" to calls.log, and
 * answers `plugin install all --local` with ALL_LOCAL_EXIT, `management-cluster --help` with
 * MC (usage | unknown | roothelp).
 */
function fakeTanzu(log: string, o: { allLocalExit?: number; mc?: 'usage' | 'unknown' | 'roothelp' } = {}): string {
  const mc = o.mc ?? 'usage';
  return `#!/bin/sh
echo "$HOME $*" >> ${log}
case "$*" in
  "plugin install all --local "*) exit ${o.allLocalExit ?? 0} ;;
  "management-cluster --help")
    case ${mc} in
      usage) printf 'Usage:\\n  tanzu management-cluster [command]\\n\\nAvailable Commands:\\n  create\\n' ;;
      roothelp) printf 'Usage:\\n  tanzu [command]\\n\\nAvailable command groups:\\n  plugin\\n' ;;
      unknown) echo 'Error: unknown command "management-cluster" for "tanzu"' >&2; exit 1 ;;
    esac ;;
esac
exit 0
`;
}

describe('ensureTanzuCli', () => {
  let dir = '';
  let log = '';
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'devpkg-tanzu-cli-'));
    log = path.join(dir, 'calls.log');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** A fetch that answers every URL with the file's bytes. */
  const serve = (file: string) => (async () => new Response(await readFile(file))) as unknown as typeof fetch;
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const calls = async () => (await readFile(log, 'utf8').catch(() => '')).trim().split('\n').filter(Boolean);

  test('a download with the right sha256 is used and checked for management-cluster; a wrong one is refused and removed', async () => {
    const file = path.join(dir, 'tanzu');
    const text = fakeTanzu(log);
    await writeFile(file, text);
    const fetch = serve(file);
    const env = { RUNNER_TEMP: dir };
    const got = await ensureTanzuCli({ url: 'https://example.com/tanzu', sha256: sha(text), fetch, env, home: '/h' });
    expect(got).toMatch(new RegExp(`^${dir}/devpkg-tanzu-cli-[^/]+/tanzu$`));
    expect(await readFile(got, 'utf8')).toBe(text);
    expect(await calls()).toEqual(['/h management-cluster --help']);
    await expect(ensureTanzuCli({ url: 'https://example.com/tanzu', sha256: 'a'.repeat(64), fetch, env })).rejects.toThrow(/has sha256 [0-9a-f]{64}, expected a{64}/);
    // The refused download is gone; only the first, used one is left.
    expect((await readdir(dir)).filter((f) => f.startsWith('devpkg-tanzu-cli-'))).toHaveLength(1);
  });

  test('a download that fails leaves no folder behind; a RUNNER_TEMP not made yet is made', async () => {
    const env = { RUNNER_TEMP: path.join(dir, 'runner', 'temp') };
    const notFound = (async () => new Response('not found', { status: 404 })) as unknown as typeof fetch;
    await expect(ensureTanzuCli({ url: 'https://example.com/tanzu', sha256: 'a'.repeat(64), fetch: notFound, env })).rejects.toThrow(/404/);
    expect(await readdir(env.RUNNER_TEMP)).toEqual([]);
  });

  /** A TCE release archive: tanzu and linux-amd64-default/ with a plugin, unpacked into `release`. */
  async function release(o: Parameters<typeof fakeTanzu>[1] = {}) {
    const rel = path.join(dir, 'unpacked', 'tce-linux-amd64-v0.12.1');
    await mkdir(path.join(rel, 'linux-amd64-default', 'management-cluster'), { recursive: true });
    await writeFile(path.join(rel, 'linux-amd64-default', 'management-cluster', 'plugin.yaml'), 'name: management-cluster\n');
    await writeFile(path.join(rel, 'tanzu'), fakeTanzu(log, o));
    await chmod(path.join(rel, 'tanzu'), 0o755);
    await writeFile(path.join(rel, 'install.sh'), '#!/bin/sh\n');
    const archive = path.join(dir, 'tce.tar.gz');
    await writeFile(archive, 'archive bytes');
    return { rel, tc: { fetch: serve(archive), env: { RUNNER_TEMP: dir }, toolCache: { extractTar: async () => path.join(dir, 'unpacked') } }, sum: sha('archive bytes') };
  }
  const url = 'https://example.com/tce-linux-amd64-v0.12.1.tar.gz';

  test("a TCE release: its bundled plugins installed as its install.sh does, tanzu init, then the check, all with the config folder's HOME", async () => {
    const { rel, tc, sum } = await release();
    const logged: string[] = [];
    expect(await ensureTanzuCli({ url, sha256: sum, ...tc, home: path.join(dir, 'home'), log: (m) => logged.push(m) })).toBe(path.join(rel, 'tanzu'));
    const home = path.join(dir, 'home');
    expect(await calls()).toEqual([`${home} plugin install all --local ${rel}/linux-amd64-default`, `${home} init`, `${home} management-cluster --help`]);
    expect(logged).toContain(`installed the bundled plugins (tanzu plugin install all --local ${rel}/linux-amd64-default), tanzu init`);
  });

  test('a tanzu-framework 0.11 release (no install all --local): the plugins are copied to ~/.config/tanzu-plugins and management-cluster installed', async () => {
    const { rel, tc, sum } = await release({ allLocalExit: 1 });
    const home = path.join(dir, 'home');
    await ensureTanzuCli({ url, sha256: sum, ...tc, home });
    expect(await calls()).toEqual([`${home} plugin install all --local ${rel}/linux-amd64-default`, `${home} plugin install management-cluster`, `${home} init`, `${home} management-cluster --help`]);
    expect(await readdir(path.join(home, '.config', 'tanzu-plugins'))).toEqual(['management-cluster']);
  });

  test.each([
    ['unknown', /cannot run management-cluster \(Error: unknown command "management-cluster" for "tanzu"\): bootstrap mode needs the management-cluster plugin/],
    ['roothelp', /cannot run management-cluster \(its help lists no management-cluster command\)/],
  ] as const)('a CLI without the management-cluster plugin (%s) is refused, saying how to get it', async (mc, message) => {
    const file = path.join(dir, 'tanzu');
    await writeFile(file, fakeTanzu(log, { mc }));
    await chmod(file, 0o755);
    await expect(ensureTanzuCli({ path: file })).rejects.toThrow(message);
    await expect(ensureTanzuCli({ path: file })).rejects.toThrow(/install the plugin first \(tanzu plugin install management-cluster\)$/);
  });

  test('a url without a checksum, or nothing at all, is a usage error', async () => {
    await expect(ensureTanzuCli({ url: 'https://example.com/tanzu' })).rejects.toThrow(/needs tanzu-cli-sha256/);
    await expect(ensureTanzuCli({ env: { PATH: dir } })).rejects.toThrow(/needs the tanzu CLI/);
  });
});

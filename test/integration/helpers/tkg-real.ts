// The real TKG 1.6 controllers in the harness (test/harness/tkg.sh): what the stand-in tanzu CLI
// needs to leave a management cluster the way the real CLI does, and what tells that the running
// processes are the real binaries.
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { renderProviders } from '../../../src/providers/render.js';
import { carriedDocs, parseDocs, type Doc } from '../../../src/providers/validate.js';
import { Ytt } from '../../../src/tools/ytt.js';
import { runTool } from './run.js';
import { copyProviders } from './tkg-providers.js';

/**
 * Renders the real providers tree (../shared/fixtures/tkg-providers-v0.25.4) for a docker management
 * cluster with antrea, the way `tanzu management-cluster create` does (src/providers/render.ts), and
 * writes to `<dir>/mgmt-objects.yaml` what the stand-in puts in the management cluster: the addon
 * Secrets, and what the `<cluster>-tkr` ClusterResourceSet's Secret carries (tkr-system's
 * tkr-controller-config ConfigMap, the tkr-controller-manager Deployment). Returns the file.
 */
export async function renderMgmtObjects(dir: string, clusterName: string): Promise<string> {
  const tanzuDir = path.join(dir, 'real-providers', '.config', 'tanzu');
  const providersDir = path.join(tanzuDir, 'tkg', 'providers');
  await copyProviders(providersDir);
  const clusterConfig = path.join(dir, 'real-providers', 'mgmt.yaml');
  await mkdir(path.dirname(clusterConfig), { recursive: true });
  await writeFile(clusterConfig, `CLUSTER_NAME: ${clusterName}\nCLUSTER_PLAN: dev\nINFRASTRUCTURE_PROVIDER: docker\nCNI: antrea\n`);
  const docs = parseDocs((await renderProviders({ ytt: new Ytt('ytt'), providersDir, clusterConfig })).text);
  const addonSecrets = docs.filter((d) => d.kind === 'Secret' && d.type === 'tkg.tanzu.vmware.com/addon');
  const tkrSecret = docs.find((d) => d.kind === 'Secret' && d.metadata?.name === `${clusterName}-tkr`);
  if (!tkrSecret) throw new Error(`the real providers render has no Secret ${clusterName}-tkr (the tkr ClusterResourceSet's)`);
  const tkr = carriedDocs(tkrSecret).filter((d: Doc) => (d.kind === 'ConfigMap' && d.metadata?.name === 'tkr-controller-config') || (d.kind === 'Deployment' && d.metadata?.name === 'tkr-controller-manager'));
  const file = path.join(dir, 'mgmt-objects.yaml');
  await writeFile(file, [...addonSecrets, ...tkr].map((d) => `---\n${stringify(d)}`).join(''));
  return file;
}

/** tkg.sh, with the harness environment. */
export const tkgScript = (): string => {
  const s = process.env.DEVPKG_TKG_HARNESS;
  if (!s) throw new Error('DEVPKG_TKG_HARNESS is not set: these tests need the harness with the real TKG controllers (controlplane.sh up --tkg; the integration tier does it)');
  return s;
};

/** The running controllers, name -> pid (tkg.sh pids). */
export async function tkgPids(): Promise<Record<string, number>> {
  const { stdout } = await runTool('bash', [tkgScript(), 'pids']);
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [name, pid] = l.split(' ');
        return [name!, Number(pid)];
      }),
  );
}

/** `go version -m` of a running process's executable: its module path, main package and build flags. */
export async function buildInfoOf(pid: number): Promise<string> {
  const { stdout } = await runTool('go', ['version', '-m', `/proc/${pid}/exe`]);
  return stdout;
}

/**
 * Whether a running process's executable carries the strings tkg.sh stamps into
 * pkg/v1/buildinfo (-X Version=v0.25.4, SHA=<tag commit>). `go version -m` does not show ldflags
 * of a -trimpath build, so the binary itself is read.
 */
export async function stampedWith(pid: number, ...strings: string[]): Promise<boolean> {
  const exe = await readFile(`/proc/${pid}/exe`);
  return strings.every((x) => exe.includes(Buffer.from(x)));
}

/** The tag commit of tanzu-framework v0.25.4 (test/harness/versions.env TANZU_FRAMEWORK_COMMIT). */
export const TANZU_FRAMEWORK_COMMIT = '8204f5b0d359512ae81ed94f5c87a59e5e1ed8b9';

/** The controller's own log, as the harness keeps it. */
export async function controllerLog(name: string): Promise<string> {
  return readFile(path.join(process.env.DEVPKG_HARNESS_DIR ?? '', 'logs', `${name}.log`), 'utf8');
}

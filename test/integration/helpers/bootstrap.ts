// Shared set-up of the bootstrap and providers integration tests: a packages repository with an
// edited antrea version folder, a tanzu HOME, a cluster config, and the stand-in tanzu CLI.
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import type { CliIO } from '../../../src/commands/io.js';
import { runCli } from '../../../src/cli.js';
import { repoRoot, runTool, tempFolder } from './run.js';

export const STANDIN = path.join(repoRoot, 'test', 'standin', 'tanzu', 'tanzu');
export const PROVIDERS_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'providers');
export const EDIT_LABEL = 'devpkg.dev/edited-in-test';

export interface Workspace {
  dir: string;
  /** The edited version folder, <repo>/addons/packages/antrea/1.5.3. */
  folder: string;
  home: string;
  tanzuDir: string;
  providersDir: string;
  clusterConfig: string;
  clusterName: string;
}

/** A repository with antrea 1.5.3 whose DaemonSet carries one more label (the "edit"). */
export async function workspace(prefix: string, clusterName = 'devpkg-it-mgmt'): Promise<Workspace> {
  return tempFolder(prefix, async (dir) => {
    const pkgDir = path.join(dir, 'repo', 'addons', 'packages', 'antrea');
    await mkdir(pkgDir, { recursive: true });
    const example = path.join(repoRoot, 'examples', 'tce-packages', 'addons', 'packages', 'antrea');
    await cp(path.join(example, 'metadata.yaml'), path.join(pkgDir, 'metadata.yaml'));
    await cp(path.join(example, '1.5.3'), path.join(pkgDir, '1.5.3'), { recursive: true });
    const upstream = path.join(pkgDir, '1.5.3', 'bundle', 'config', 'upstream', 'antrea.yaml');
    const text = await readFile(upstream, 'utf8');
    const anchor = '  labels:\n    app: antrea\n    component: antrea-agent\n';
    if (!text.includes(anchor)) throw new Error(`the example antrea.yaml changed; ${anchor} not found`);
    await writeFile(upstream, text.replace(anchor, `${anchor}    ${EDIT_LABEL}: "yes"\n`));
    const home = path.join(dir, 'home');
    const tanzuDir = path.join(home, '.config', 'tanzu');
    const clusterConfig = path.join(dir, 'mgmt.yaml');
    await writeFile(clusterConfig, `CLUSTER_NAME: ${clusterName}\nCLUSTER_PLAN: dev\nINFRASTRUCTURE_PROVIDER: docker\nCNI: antrea\n`);
    return { dir, folder: path.join(pkgDir, '1.5.3'), home, tanzuDir, providersDir: path.join(tanzuDir, 'tkg', 'providers'), clusterConfig, clusterName };
  });
}

export async function devpkg(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env, cwd: repoRoot };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

export type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Renders a providers folder the way the tanzu CLI does: config_default.yaml, ytt/, the cluster config as data values. */
export async function renderProviders(providersDir: string, values: Record<string, string>): Promise<Doc[]> {
  const file = path.join(path.dirname(providersDir), `values-${Date.now()}.yaml`);
  await writeFile(file, ['#@data/values', '#@overlay/match-child-defaults missing_ok=True', '---', ...Object.entries(values).map(([k, v]) => `${k}: ${JSON.stringify(v)}`), ''].join('\n'));
  const { stdout } = await runTool('ytt', ['-f', path.join(providersDir, 'config_default.yaml'), '-f', path.join(providersDir, 'ytt'), '-f', file]);
  return parseAllDocuments(stdout).map((d) => d.toJS() as Doc).filter(Boolean);
}

export function carried(secret: Doc): Doc[] {
  return parseAllDocuments(String(secret.stringData?.value ?? '')).map((d) => d.toJS() as Doc).filter(Boolean);
}

export function parseYaml(text: string): Doc {
  return parse(text) as Doc;
}

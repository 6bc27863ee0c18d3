import { DevpkgError } from '../errors.js';
import { execTool, type ExecFn } from './exec.js';
import { askVersion, lastLines, VersionedTool } from './tool.js';

export interface KindCreateOptions {
  name: string;
  /** Node image, e.g. kindest/node:v1.29.2@sha256:... */
  image?: string;
  /** Where kind writes the cluster's kubeconfig. */
  kubeconfig?: string;
  /** kind cluster config file. */
  config?: string;
  /** How long kind waits for the control plane, e.g. 120s. */
  wait?: string;
}

// ---- argv builders (pure; tested table-style) ----

export const kindArgs = {
  version: (): string[] => ['version'],
  create: (o: KindCreateOptions): string[] => [
    'create',
    'cluster',
    '--name',
    o.name,
    ...(o.image ? ['--image', o.image] : []),
    ...(o.config ? ['--config', o.config] : []),
    ...(o.kubeconfig ? ['--kubeconfig', o.kubeconfig] : []),
    '--wait',
    o.wait ?? '120s',
  ],
  delete: (name: string, kubeconfig?: string): string[] => ['delete', 'cluster', '--name', name, ...(kubeconfig ? ['--kubeconfig', kubeconfig] : [])],
  getClusters: (): string[] => ['get', 'clusters'],
  getNodes: (name: string): string[] => ['get', 'nodes', '--name', name],
  getKubeconfig: (name: string, internal = false): string[] => ['get', 'kubeconfig', '--name', name, ...(internal ? ['--internal'] : [])],
};

/** `kind v0.22.0 go1.21.7 linux/amd64` -> `0.22.0`. */
export function parseKindVersion(text: string): string | undefined {
  return /kind v?(\d+\.\d+\.\d+\S*)/.exec(text)?.[1];
}

/** The kind CLI (kind mode on GitHub runners). */
export class Kind extends VersionedTool<string> {
  static async create(exec: ExecFn = execTool, path = 'kind'): Promise<Kind> {
    const version = await askVersion(exec, path, kindArgs.version(), parseKindVersion, (r) =>
      `kind did not report a version (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(-200)}; install kind (https://kind.sigs.k8s.io) or set input kind-version`,
    );
    return new Kind(path, version, exec);
  }

  async clusters(): Promise<string[]> {
    const r = await this.exec(this.path, kindArgs.getClusters(), { allowFail: true });
    return r.stdout.split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('No kind clusters'));
  }

  /** `env`: e.g. KIND_EXPERIMENTAL_DOCKER_NETWORK, the network kind puts the nodes on. */
  async createCluster(o: KindCreateOptions, onOutput?: (chunk: string) => void, env?: Record<string, string>): Promise<void> {
    const r = await this.exec(this.path, kindArgs.create(o), { allowFail: true, onStderr: onOutput, onStdout: onOutput, ...(env ? { env } : {}) });
    if (r.code !== 0) {
      throw new DevpkgError(`kind create cluster ${o.name} failed (exit ${r.code}): ${lastLines(r.stderr, 15)}`);
    }
  }

  /** Deletes the cluster; true when kind said it was deleted (or it was not there). */
  async tryDeleteCluster(name: string, kubeconfig?: string): Promise<boolean> {
    const r = await this.exec(this.path, kindArgs.delete(name, kubeconfig), { allowFail: true });
    return r.code === 0;
  }

  /** The node containers of a cluster. */
  async nodes(name: string): Promise<string[]> {
    const r = await this.exec(this.path, kindArgs.getNodes(name), { allowFail: true });
    if (r.code !== 0) throw new DevpkgError(`kind get nodes --name ${name} failed (exit ${r.code}): ${r.stderr.trim()}`);
    return r.stdout.split('\n').map((s) => s.trim()).filter((s) => s && !s.startsWith('No kind nodes'));
  }

  async kubeconfig(name: string, internal = false): Promise<string> {
    const r = await this.exec(this.path, kindArgs.getKubeconfig(name, internal));
    return r.stdout;
  }
}

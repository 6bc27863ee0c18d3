import { DevpkgError } from '../errors.js';
import { execTool, type ExecFn, type ExecResult } from './exec.js';
import { lastLines } from './tool.js';

export interface KubectlBase {
  kubeconfig?: string;
  context?: string;
}

export interface WaitOptions extends KubectlBase {
  /** e.g. packageinstall.packaging.carvel.dev/antrea */
  resource: string;
  namespace?: string;
  /** e.g. condition=ReconcileSucceeded, delete, jsonpath='{.status.version}'=1.0.0 */
  for: string;
  timeout?: string;
}

// ---- argv builders (pure; tested table-style) ----

function base(o: KubectlBase): string[] {
  return [...(o.kubeconfig ? ['--kubeconfig', o.kubeconfig] : []), ...(o.context ? ['--context', o.context] : [])];
}

export const kubectlArgs = {
  version: (): string[] => ['version', '--client', '-o', 'json'],
  applyFile: (o: KubectlBase & { file: string; serverSide?: boolean; fieldManager?: string }): string[] => [
    ...base(o),
    'apply',
    '-f',
    o.file,
    ...(o.serverSide ? ['--server-side', '--force-conflicts'] : []),
    ...(o.fieldManager ? [`--field-manager=${o.fieldManager}`] : []),
  ],
  wait: (o: WaitOptions): string[] => [
    ...base(o),
    'wait',
    ...(o.namespace ? ['-n', o.namespace] : []),
    o.resource,
    `--for=${o.for}`,
    `--timeout=${o.timeout ?? '300s'}`,
  ],
  delete: (o: KubectlBase & { resource: string; namespace?: string; wait?: boolean }): string[] => [
    ...base(o),
    'delete',
    ...(o.namespace ? ['-n', o.namespace] : []),
    o.resource,
    '--ignore-not-found',
    `--wait=${o.wait ? 'true' : 'false'}`,
  ],
  rolloutStatus: (o: KubectlBase & { resource: string; namespace: string; timeout?: string }): string[] => [
    ...base(o),
    'rollout',
    'status',
    '-n',
    o.namespace,
    o.resource,
    `--timeout=${o.timeout ?? '300s'}`,
  ],
};

/**
 * A kubectl resource argument for an apiVersion + kind: `kind.version.group/name`, fully
 * qualified so kubectl never picks a same-named kind of another group.
 */
export function resourceArg(apiVersion: string, kind: string, name: string): string {
  const slash = apiVersion.indexOf('/');
  const k = kind.toLowerCase();
  if (slash < 0) return `${k}/${name}`;
  return `${k}.${apiVersion.slice(slash + 1)}.${apiVersion.slice(0, slash)}/${name}`;
}

/** The kubectl CLI: the kind mode installs kapp-controller's release manifest with it. */
export class Kubectl {
  private constructor(
    readonly path: string,
    private readonly exec: ExecFn,
  ) {}

  static async create(exec: ExecFn = execTool, path = 'kubectl'): Promise<Kubectl> {
    const r = await exec(path, kubectlArgs.version(), { allowFail: true });
    if (r.code !== 0) {
      throw new DevpkgError(`kubectl does not run (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(-200)}; install kubectl or put it on PATH`);
    }
    return new Kubectl(path, exec);
  }

  private async run(args: string[], what: string, timeoutMs?: number): Promise<ExecResult> {
    const r = await this.exec(this.path, args, { allowFail: true, timeoutMs });
    if (r.code !== 0) throw new DevpkgError(`${what} failed (exit ${r.code}): ${lastLines(r.stderr || r.stdout, 10)}`);
    return r;
  }

  async applyFile(o: KubectlBase & { file: string; serverSide?: boolean; fieldManager?: string }): Promise<string> {
    return (await this.run(kubectlArgs.applyFile(o), `kubectl apply -f ${o.file}`)).stdout;
  }

  async wait(o: WaitOptions): Promise<ExecResult> {
    return this.run(kubectlArgs.wait(o), `kubectl wait ${o.resource} --for=${o.for}`);
  }

  async tryDelete(o: KubectlBase & { resource: string; namespace?: string }): Promise<boolean> {
    const r = await this.exec(this.path, kubectlArgs.delete(o), { allowFail: true });
    return r.code === 0;
  }

  async rolloutStatus(o: KubectlBase & { resource: string; namespace: string; timeout?: string }): Promise<void> {
    await this.run(kubectlArgs.rolloutStatus(o), `kubectl rollout status ${o.resource}`);
  }
}

import { DevpkgError } from '../errors.js';
import { execTool, type ExecFn, type ExecOptions, type ExecResult } from './exec.js';
import { lastLines } from './tool.js';

export interface CreateOptions {
  /** Management cluster config file (`--file`). */
  file: string;
  /** Infrastructure provider (`-i`), docker for CAPD. */
  infrastructure?: string;
  dryRun?: boolean;
  /** Where the CLI writes its own log (`--log-file`). */
  logFile?: string;
  /** Verbosity of that log (`-v`). */
  verbosity?: number;
}

// ---- argv builders (pure; tested table-style) ----

export const tanzuArgs = {
  version: (): string[] => ['version'],
  create: (o: CreateOptions): string[] => [
    'management-cluster',
    'create',
    ...(o.infrastructure ? ['-i', o.infrastructure] : []),
    '--file',
    o.file,
    ...(o.dryRun ? ['--dry-run'] : ['--yes']),
    ...(o.logFile ? ['--log-file', o.logFile] : []),
    ...(o.verbosity !== undefined ? ['-v', String(o.verbosity)] : []),
  ],
  kubeconfigAdmin: (exportFile: string): string[] => ['management-cluster', 'kubeconfig', 'get', '--admin', '--export-file', exportFile],
  delete: (name: string): string[] => ['management-cluster', 'delete', name, '--yes'],
  /** tanzu-framework >= 0.17: every plugin of a local bundle folder (TCE's install.sh). */
  pluginInstallAllLocal: (dir: string): string[] => ['plugin', 'install', 'all', '--local', dir],
  /** tanzu-framework 0.11: one plugin, from the plugins copied into ~/.config/tanzu-plugins. */
  pluginInstall: (name: string): string[] => ['plugin', 'install', name],
  init: (): string[] => ['init'],
  managementClusterHelp: (): string[] => ['management-cluster', '--help'],
};

/** The environment that keeps the CLI from replacing a customised providers folder (any non-empty value). */
export const SUPPRESS_PROVIDERS_UPDATE = 'SUPPRESS_PROVIDERS_UPDATE';

/** The tanzu CLI (bootstrap mode). `env` goes to every call (HOME for a non-default config folder). */
export class Tanzu {
  constructor(
    readonly path = 'tanzu',
    private readonly exec: ExecFn = execTool,
    private readonly env: Record<string, string | undefined> = {},
  ) {}

  private run(args: string[], opts: ExecOptions = {}): Promise<ExecResult> {
    return this.exec(this.path, args, { ...opts, env: { ...this.env, ...(opts.env ?? {}) } });
  }

  async version(): Promise<string> {
    const r = await this.run(tanzuArgs.version(), { allowFail: true });
    if (r.code !== 0) throw new DevpkgError(`${this.path} version exited ${r.code}: ${(r.stderr || r.stdout).trim().slice(-300)}; set input tanzu-cli (or --tanzu) to a working tanzu CLI`);
    return (/version:\s*(\S+)/i.exec(r.stdout)?.[1] ?? r.stdout.trim().split('\n')[0]) || 'unknown';
  }

  /**
   * `management-cluster create --dry-run`: the rendered cluster template. With `suppress`, the CLI
   * leaves the providers folder as it is (our edits); without, it may populate it.
   */
  async dryRun(file: string, suppress: boolean, infrastructure = 'docker'): Promise<string> {
    const r = await this.run(tanzuArgs.create({ file, dryRun: true, infrastructure }), {
      allowFail: true,
      env: suppress ? { [SUPPRESS_PROVIDERS_UPDATE]: '1' } : {},
      timeoutMs: 10 * 60_000,
    });
    if (r.code !== 0) {
      throw new DevpkgError(`tanzu management-cluster create --dry-run --file ${file} failed (exit ${r.code}): ${lastLines(r.stderr || r.stdout, 20)}`);
    }
    return r.stdout;
  }

  /** The real create, with SUPPRESS_PROVIDERS_UPDATE set; output streamed to `onOutput`. */
  async create(o: CreateOptions & { timeoutMs: number; onOutput?: (chunk: string) => void; signal?: AbortSignal }): Promise<ExecResult> {
    return this.run(tanzuArgs.create({ ...o, dryRun: false }), {
      allowFail: true,
      env: { [SUPPRESS_PROVIDERS_UPDATE]: '1' },
      timeoutMs: o.timeoutMs,
      signal: o.signal,
      onStdout: o.onOutput,
      onStderr: o.onOutput,
    });
  }

  /** `plugin install all --local DIR`; false when this CLI cannot (older tanzu-framework). */
  async tryInstallAllLocal(dir: string): Promise<boolean> {
    return (await this.run(tanzuArgs.pluginInstallAllLocal(dir), { allowFail: true, timeoutMs: 5 * 60_000 })).code === 0;
  }

  async tryInstallPlugin(name: string): Promise<boolean> {
    return (await this.run(tanzuArgs.pluginInstall(name), { allowFail: true, timeoutMs: 5 * 60_000 })).code === 0;
  }

  /** `tanzu init`: the CLI's first-run set-up of its plugins and repositories. */
  async tryInit(): Promise<boolean> {
    return (await this.run(tanzuArgs.init(), { allowFail: true, timeoutMs: 5 * 60_000 })).code === 0;
  }

  /** Why this CLI cannot run `management-cluster` (undefined: it can). */
  async managementClusterMissing(): Promise<string | undefined> {
    const r = await this.run(tanzuArgs.managementClusterHelp(), { allowFail: true, timeoutMs: 60_000 });
    // A CLI without the plugin may answer with its root help (exit 0): look for the command's own usage.
    if (r.code === 0 && /management-cluster (\[command\]|create)/.test(r.stdout)) return undefined;
    if (r.code === 0) return 'its help lists no management-cluster command';
    return (r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ') || `exit ${r.code}`;
  }

  async exportAdminKubeconfig(file: string): Promise<void> {
    const r = await this.run(tanzuArgs.kubeconfigAdmin(file), { allowFail: true, timeoutMs: 5 * 60_000 });
    if (r.code !== 0) throw new DevpkgError(`tanzu management-cluster kubeconfig get --admin failed (exit ${r.code}): ${(r.stderr || r.stdout).trim().slice(-500)}`);
  }
}

/**
 * The action's side of the world (logs, outputs, state, summary), as an
 * interface so modes run in tests with a recorder and in the action with @actions/core.
 */
export interface Annotation {
  file?: string;
  line?: number;
  title?: string;
}

export interface ActionHost {
  info(message: string): void;
  warning(message: string, where?: Annotation): void;
  error(message: string, where?: Annotation): void;
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
  setOutput(name: string, value: string): void;
  setSecret(value: string): void;
  saveState(name: string, value: string): void;
  getState(name: string): string;
  /** Appends markdown to the job summary. */
  summary(markdown: string): Promise<void>;
}

export async function coreHost(runner?: import('./runner.js').Runner): Promise<ActionHost> {
  const { Runner } = await import('./runner.js');
  const r = runner ?? new Runner();
  return {
    info: (m) => r.info(m),
    warning: (m, w) => r.annotate('warning', m, w),
    error: (m, w) => r.annotate('error', m, w),
    group: (name, fn) => r.group(name, fn),
    setOutput: (n, v) => r.setOutput(n, v),
    setSecret: (v) => r.setSecret(v),
    saveState: (n, v) => r.saveState(n, v),
    getState: (n) => r.getState(n),
    summary: async (md) => r.appendSummary(md),
  };
}

/** A host that records everything; used by tests and by the CLI's --dry runs. */
export class RecordingHost implements ActionHost {
  readonly logs: string[] = [];
  readonly warnings: Array<{ message: string; where?: Annotation }> = [];
  readonly errors: Array<{ message: string; where?: Annotation }> = [];
  readonly outputs: Record<string, string> = {};
  readonly secrets: string[] = [];
  readonly state: Record<string, string> = {};
  readonly summaries: string[] = [];
  info(m: string): void {
    this.logs.push(m);
  }
  warning(message: string, where?: Annotation): void {
    this.warnings.push({ message, where });
  }
  error(message: string, where?: Annotation): void {
    this.errors.push({ message, where });
  }
  async group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.logs.push(`::group::${name}`);
    try {
      return await fn();
    } finally {
      this.logs.push('::endgroup::');
    }
  }
  setOutput(n: string, v: string): void {
    this.outputs[n] = v;
  }
  setSecret(v: string): void {
    this.secrets.push(v);
  }
  saveState(n: string, v: string): void {
    this.state[n] = v;
  }
  getState(n: string): string {
    return this.state[n] ?? '';
  }
  async summary(md: string): Promise<void> {
    this.summaries.push(md);
  }
}

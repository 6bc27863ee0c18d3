/**
 * The action's side of the world (logs, outputs, state, summary), as an interface so modes
 * run in tests with a recorder and in the action with @actions/core, the one layer that speaks
 * the runner protocol.
 */
import type * as Core from '@actions/core';

export interface Annotation {
  file?: string;
  line?: number;
  title?: string;
}

export interface ActionHost {
  info(message: string): void;
  notice(message: string, where?: Annotation): void;
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

export type ActionsCore = typeof Core;

/**
 * The annotation's properties with only the ones that are set, or undefined when none is:
 * @actions/core writes `::warning ::message` (a space, read as plain text by act and other
 * readers of the protocol) for an object whose keys are all undefined.
 */
export function properties(where?: Annotation): Core.AnnotationProperties | undefined {
  const all: Core.AnnotationProperties = { title: where?.title, file: where?.file, startLine: where?.line };
  const set = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined && v !== '')) as Core.AnnotationProperties;
  return Object.keys(set).length > 0 ? set : undefined;
}

/** The ActionHost of a real run: every call goes to @actions/core. */
export function coreHost(core: ActionsCore): ActionHost {
  return {
    info: (m) => core.info(m),
    notice: (m, w) => core.notice(m, properties(w)),
    warning: (m, w) => core.warning(m, properties(w)),
    error: (m, w) => core.error(m, properties(w)),
    group: (name, fn) => core.group(name, fn),
    setOutput: (n, v) => core.setOutput(n, v),
    // The runner warns about an empty mask; unset credentials arrive here as ''.
    setSecret: (v) => {
      if (v) core.setSecret(v);
    },
    saveState: (n, v) => core.saveState(n, v),
    getState: (n) => core.getState(n),
    summary: async (md) => {
      await core.summary.addRaw(md, !md.endsWith('\n')).write();
    },
  };
}

/** A host that records everything, for tests. */
export class RecordingHost implements ActionHost {
  readonly logs: string[] = [];
  readonly notices: Array<{ message: string; where?: Annotation }> = [];
  readonly warnings: Array<{ message: string; where?: Annotation }> = [];
  readonly errors: Array<{ message: string; where?: Annotation }> = [];
  readonly outputs: Record<string, string> = {};
  readonly secrets: string[] = [];
  readonly state: Record<string, string> = {};
  readonly summaries: string[] = [];
  info(m: string): void {
    this.logs.push(m);
  }
  notice(message: string, where?: Annotation): void {
    this.notices.push({ message, where });
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

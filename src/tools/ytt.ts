import { DevpkgError } from '../errors.js';
import { execTool, type ExecFn } from './exec.js';
import { lastLines } from './tool.js';

export interface YttTemplateOptions {
  /** Files or folders, in order (`-f` each). */
  files: string[];
  /** Data values files (`--data-values-file`). */
  dataValuesFiles?: string[];
  /** `PATH:key=value` file marks (`--file-mark`), e.g. `tkg-bom-v1.6.1.yaml:type=text-plain`. */
  fileMarks?: string[];
  /** `KEY=VALUE` data values parsed as YAML (`--data-value-yaml`), applied last. */
  dataValuesYaml?: string[];
}

// ---- argv builders (pure; tested table-style) ----

export const yttArgs = {
  version: (): string[] => ['version'],
  template: (o: YttTemplateOptions): string[] => [
    ...o.files.flatMap((f) => ['-f', f]),
    ...(o.fileMarks ?? []).flatMap((m) => ['--file-mark', m]),
    ...(o.dataValuesFiles ?? []).flatMap((f) => ['--data-values-file', f]),
    ...(o.dataValuesYaml ?? []).flatMap((v) => ['--data-value-yaml', v]),
  ],
};

/** `ytt version 0.53.0` -> `0.53.0`. */
export function parseYttVersion(text: string): string | undefined {
  return /ytt version v?(\d+\.\d+\.\d+\S*)/.exec(text)?.[1];
}

/** The ytt CLI: renders providers trees and package configs. */
export class Ytt {
  constructor(
    readonly path = 'ytt',
    private readonly exec: ExecFn = execTool,
  ) {}

  async version(): Promise<string> {
    const r = await this.exec(this.path, yttArgs.version(), { allowFail: true });
    const v = parseYttVersion(r.stdout);
    if (r.code !== 0 || !v) throw new DevpkgError(`ytt did not report a version (exit ${r.code}); install ytt (https://carvel.dev/ytt) and put it on PATH`);
    return v;
  }

  /** Renders and returns the YAML stream; a template error names the files and ytt's message. */
  async template(o: YttTemplateOptions): Promise<string> {
    const r = await this.exec(this.path, yttArgs.template(o), { allowFail: true });
    if (r.code !== 0) {
      throw new DevpkgError(`ytt could not render ${o.files.join(', ')}: ${lastLines(r.stderr, 15)}`);
    }
    return r.stdout;
  }
}

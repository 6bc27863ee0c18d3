/**
 * The GitHub Actions runner protocol (inputs, file commands, workflow commands), written
 * out instead of loading @actions/core: core pulls in its HTTP client (undici, tls, http2)
 * at import time, which was most of plan mode's start-up (see bench/startup.bench.mjs).
 */
import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { EOL } from 'node:os';

export interface CommandProperties {
  file?: string;
  line?: number;
  title?: string;
}

type Env = NodeJS.ProcessEnv;
type Write = (text: string) => void;

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** `::name k=v,...::message`, escaped as the runner expects. */
export function workflowCommand(name: string, message: string, props: Record<string, string | number | undefined> = {}): string {
  const list = Object.entries(props)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${name}${list ? ` ${list}` : ''}::${escapeData(message)}`;
}

/** A `name<<delimiter` block for GITHUB_OUTPUT / GITHUB_STATE. */
export function fileCommandBlock(name: string, value: string, delimiter = `ghadelimiter_${randomUUID()}`): string {
  if (name.includes(delimiter) || value.includes(delimiter)) {
    throw new Error(`value of ${name} contains the delimiter ${delimiter}`);
  }
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`;
}

export class Runner {
  constructor(
    private readonly env: Env = process.env,
    private readonly write: Write = (t) => void process.stdout.write(t),
  ) {}

  getInput(name: string): string {
    return (this.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
  }

  private fileCommand(variable: string, legacy: string, name: string, value: string): void {
    const file = this.env[variable];
    if (file) appendFileSync(file, fileCommandBlock(name, value), 'utf8');
    else this.write(EOL + workflowCommand(legacy, value, { name }) + EOL);
  }

  setOutput(name: string, value: string): void {
    this.fileCommand('GITHUB_OUTPUT', 'set-output', name, value);
  }

  saveState(name: string, value: string): void {
    this.fileCommand('GITHUB_STATE', 'save-state', name, value);
  }

  getState(name: string): string {
    return this.env[`STATE_${name}`] ?? '';
  }

  setSecret(value: string): void {
    if (value) this.write(workflowCommand('add-mask', value) + EOL);
  }

  info(message: string): void {
    this.write(message + EOL);
  }

  annotate(kind: 'warning' | 'error' | 'notice', message: string, props: CommandProperties = {}): void {
    this.write(workflowCommand(kind, message, { title: props.title, file: props.file, line: props.line }) + EOL);
  }

  async group<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.write(workflowCommand('group', name) + EOL);
    try {
      return await fn();
    } finally {
      this.write(workflowCommand('endgroup', '') + EOL);
    }
  }

  /** Appends markdown to the job summary; a no-op outside a runner. */
  appendSummary(markdown: string): void {
    const file = this.env.GITHUB_STEP_SUMMARY;
    if (file) appendFileSync(file, markdown.endsWith('\n') ? markdown : markdown + EOL, 'utf8');
  }

  setFailed(message: string): void {
    process.exitCode = 1;
    this.annotate('error', message);
  }
}

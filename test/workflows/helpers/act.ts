// The workflow tier's runner: nektos/act (built by test/harness/act.sh) running a workflow file we
// ship on this machine's host (`-P ubuntu-latest=-self-hosted`), with our stand-ins for the actions
// GitHub serves (test/workflows/standins), a folder-backed artifact store, a GitHub API stand-in
// reached through GITHUB_API_URL, and events as JSON files. What a run printed is parsed into the
// jobs and their results, the outputs steps set and the annotations, what a user reads in the
// Actions tab.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const STANDINS = join(repoRoot, 'test', 'workflows', 'standins');
/** The actions GitHub serves that our workflows use, each played by a stand-in of ours. */
export const STANDIN_ACTIONS = ['checkout', 'upload-artifact', 'download-artifact', 'setup-node'] as const;

export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=devpkg test', '-c', 'user.email=test@devpkg.invalid', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' }).trim();

/** `test/harness/act.sh build`: the act binary (built once, cached outside the repository). */
export function actBinary(): string {
  return execFileSync('bash', [join(repoRoot, 'test', 'harness', 'act.sh'), 'build'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 1_800_000 }).trim();
}

/** Node 24 (scripts/node24.sh), what GitHub runs `node24` actions with. */
export function node24(): string {
  return execFileSync('bash', [join(repoRoot, 'scripts', 'node24.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 }).trim();
}

/** The `uses: actions/NAME@SHA` pins in the workflow files given (pure over their text). */
export function pinnedActions(texts: string[]): Map<string, Set<string>> {
  const pins = new Map<string, Set<string>>();
  for (const text of texts) {
    for (const m of text.matchAll(/uses:\s*actions\/([\w-]+)@([0-9a-f]{40})/g)) {
      const set = pins.get(m[1]!) ?? new Set<string>();
      set.add(m[2]!);
      pins.set(m[1]!, set);
    }
  }
  return pins;
}

/**
 * The workflow files a workflow-tier test file runs: each string literal naming
 * `.github/workflows/NAME.yml` (the path runIn takes, in the consumer or devpkg's repository).
 * Pure, over the test file's text.
 */
export function workflowsRunBy(source: string): string[] {
  return [...new Set([...source.matchAll(/['"`]\.github\/workflows\/([\w.-]+\.ya?ml)['"`]/g)].map((m) => m[1]!))].sort();
}

/** Every workflow file we ship. */
export function shippedWorkflows(): string[] {
  const dirs = [join(repoRoot, '.github', 'workflows'), join(repoRoot, 'examples', 'workflows')];
  return dirs.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.yml')).map((f) => join(d, f)));
}

/**
 * The stand-in actions laid out as act takes them (one folder each: action.yml, main.mjs,
 * common.mjs, inputs.json with the declared inputs), and the `--local-repository` flags mapping
 * every pinned SHA of the real action to it. An action we pin without a stand-in is an error.
 */
export function standinActions(dir: string): string[] {
  const flags: string[] = [];
  const pins = pinnedActions(shippedWorkflows().map((f) => readFileSync(f, 'utf8')));
  for (const [name, shas] of pins) {
    // setup-go and cache appear only in ci.yml, which the tier does not run.
    if (!(STANDIN_ACTIONS as readonly string[]).includes(name)) continue;
    const to = join(dir, name);
    mkdirSync(to, { recursive: true });
    for (const f of ['action.yml', 'main.mjs']) cpSync(join(STANDINS, name, f), join(to, f));
    cpSync(join(STANDINS, 'common.mjs'), join(to, 'common.mjs'));
    const action = parseYaml(readFileSync(join(STANDINS, name, 'action.yml'), 'utf8')) as { inputs?: Record<string, unknown> };
    writeFileSync(join(to, 'inputs.json'), JSON.stringify(Object.keys(action.inputs ?? {})));
    for (const sha of shas) flags.push('--local-repository', `actions/${name}@${sha}=${to}`);
  }
  return flags;
}

/**
 * devpkg's repository in the tier: the examples' `OWNER/devpkg` placeholder is replaced by it, as a
 * user replaces it by theirs (lower case: the self-test's registry path is built from the owner).
 */
export const DEVPKG_REPOSITORY = 'owner/devpkg';

/**
 * A git repository holding devpkg as a user's runner fetches it (action.yml, dist/, the reusable
 * workflow, the examples) at one commit: what `owner/devpkg@<sha>` and the reusable workflow's
 * `.devpkg-action` checkout resolve to. Returns its commit. `dist/` is the checkout's, or the
 * folder DEVPKG_WORKFLOW_DIST names: a bundle of a branch's sources made elsewhere
 * (`node scripts/bundle.mjs DIR`), so the tier runs them without rebuilding the committed dist/.
 */
export function devpkgRepository(dir: string, mutate?: (dir: string) => void): string {
  mkdirSync(dir, { recursive: true });
  for (const p of ['action.yml', '.github', 'examples', 'README.md']) cpSync(join(repoRoot, p), join(dir, p), { recursive: true });
  const dist = process.env.DEVPKG_WORKFLOW_DIST || join(repoRoot, 'dist');
  if (!existsSync(join(dist, 'index.js'))) throw new Error(`${dist} holds no bundle (index.js): run npm run bundle, or node scripts/bundle.mjs DIR with DEVPKG_WORKFLOW_DIST=DIR`);
  cpSync(dist, join(dir, 'dist'), { recursive: true });
  mutate?.(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'remote', 'add', 'origin', `https://github.com/${DEVPKG_REPOSITORY}.git`);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'devpkg at the commit under test');
  return git(dir, 'rev-parse', 'HEAD');
}

/** One job's outcome as act reports it, and the outputs its steps set. */
export interface JobRun {
  /** act's job name (the job id, or `name:`; act leaves `${{ }}` in names unevaluated). */
  job: string;
  result?: 'success' | 'failure' | 'skipped' | string;
  /** step outputs by name, from `::set-output::` lines (the last value wins). */
  outputs: Record<string, string>;
  /** `::warning::` / `::error::` annotations as act parsed them. */
  annotations: string[];
}

export interface ActRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** act's log, one JSON object a line (--json). */
  log: Array<Record<string, unknown>>;
  /** act's raw stdout and stderr, for messages. */
  text: string;
  jobs: Map<string, JobRun>;
}

/** act's --json log lines into jobs (pure). */
export function parseActLog(text: string): { log: Array<Record<string, unknown>>; jobs: Map<string, JobRun> } {
  const log: Array<Record<string, unknown>> = [];
  const jobs = new Map<string, JobRun>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    log.push(entry);
    const name = typeof entry.job === 'string' ? entry.job : undefined;
    if (!name) continue;
    const job = jobs.get(name) ?? { job: name, outputs: {}, annotations: [] };
    jobs.set(name, job);
    if (typeof entry.jobResult === 'string') job.result = entry.jobResult;
    if (entry.command === 'set-output' && typeof entry.name === 'string') job.outputs[entry.name] = String(entry.arg ?? '');
    const msg = String(entry.msg ?? '');
    if (/^[^:]*::(warning|error)/.test(msg)) job.annotations.push(msg.trim());
  }
  return { log, jobs };
}

export interface ActOptions {
  act: string;
  /** The repository the workflow runs in (its work tree is the workspace). */
  workdir: string;
  /** Path of the workflow file, relative to workdir. */
  workflow: string;
  event: string;
  /** The event payload (written to a file for act's -e). */
  payload: Record<string, unknown>;
  runId: number;
  apiUrl: string;
  /** owner/name -> folder, for the checkout stand-in. */
  repositories: Record<string, string>;
  /** Extra --local-repository flags (devpkg itself). */
  localRepositories: string[];
  standinFlags: string[];
  artifacts: string;
  nodes: Record<string, string>;
  /** Folder for act's own state (HOME, caches, event file); removed by the caller. */
  scratch: string;
  /** PATH of the jobs (first entries win); default: Node 24's folder, then this process's PATH. */
  path?: string;
  env?: Record<string, string>;
  job?: string;
  inputs?: Record<string, string>;
  /**
   * More runs-on mappings (`-P LABEL=IMAGE`), for a workflow that asks for labels of its own, as a
   * user running it with act maps them (e.g. `tanzu-bootstrap=-self-hosted`).
   */
  platforms?: string[];
  /** Repository variables, `vars.NAME` in the workflow (act's --var NAME=VALUE). */
  vars?: Record<string, string>;
  /** Called with the child once it runs (e.g. to interrupt it). */
  onStart?: (child: ChildProcess, output: () => string) => void;
  timeoutMs?: number;
}

/** Runs act once and waits for it to end. */
export function runAct(o: ActOptions): Promise<ActRun> {
  mkdirSync(o.scratch, { recursive: true });
  const eventFile = join(o.scratch, `event-${o.runId}.json`);
  writeFileSync(eventFile, JSON.stringify(o.payload, null, 2));
  const args = [
    o.event,
    '-W', o.workflow,
    '-e', eventFile,
    '-P', 'ubuntu-latest=-self-hosted',
    '--json',
    '--no-cache-server',
    '--action-offline-mode',
    '--action-cache-path', join(o.scratch, 'act-cache'),
    '-s', 'GITHUB_TOKEN=standin-token',
    '--env', `GITHUB_RUN_ID=${o.runId}`,
    // Run numbers rise with each run of a workflow, as devpkg's dev versions do.
    '--env', `GITHUB_RUN_NUMBER=${o.runId}`,
    '--env', `GITHUB_API_URL=${o.apiUrl}`,
    '--env', 'GITHUB_SERVER_URL=https://github.example',
    ...o.standinFlags,
    ...o.localRepositories,
  ];
  if (o.job) args.push('-j', o.job);
  for (const [k, v] of Object.entries(o.inputs ?? {})) args.push('--input', `${k}=${v}`);
  for (const p of o.platforms ?? []) args.push('-P', p);
  for (const [k, v] of Object.entries(o.vars ?? {})) args.push('--var', `${k}=${v}`);
  const env: NodeJS.ProcessEnv = {
    PATH: o.path ?? `${dirname(o.nodes['24'] ?? process.execPath)}:${process.env.PATH}`,
    HOME: join(o.scratch, 'home'),
    XDG_CACHE_HOME: join(o.scratch, 'cache'),
    XDG_CONFIG_HOME: join(o.scratch, 'config'),
    LANG: 'C.UTF-8',
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    DEVPKG_STANDIN_REPOSITORIES: JSON.stringify(o.repositories),
    DEVPKG_STANDIN_ARTIFACTS: o.artifacts,
    DEVPKG_STANDIN_NODES: JSON.stringify(o.nodes),
    ...o.env,
  };
  mkdirSync(env.HOME!, { recursive: true });
  return new Promise((resolvePromise, reject) => {
    const child = spawn(o.act, args, { cwd: o.workdir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, o.timeoutMs ?? 600_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const { log, jobs } = parseActLog(text);
      resolvePromise({ code, signal, log, text, jobs });
    });
    o.onStart?.(child, () => text);
  });
}

/** A short summary of a run for failure messages: each job's result and the last lines. */
export function describe(run: ActRun, lines = 60): string {
  const jobs = [...run.jobs.values()].map((j) => `${j.job}: ${j.result ?? '(no result)'}`).join('\n');
  const msgs = run.log.map((e) => `[${String(e.job ?? '')}] ${String(e.msg ?? '')}`.trimEnd());
  const tail = (msgs.length ? msgs : run.text.split('\n')).slice(-lines).join('\n');
  return `act exited ${run.signal ?? run.code}\njobs:\n${jobs}\n--- last lines ---\n${tail}`;
}

/** A fresh scratch folder for one test file. */
export function scratchFolder(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function removeFolder(dir: string | undefined): void {
  if (dir && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

/** A job's name without the workflow's: `devpkg/devpkg (reusable)/verify antrea/1.5.3-1` -> `verify antrea/1.5.3-1`, `self-test-reusable/check` -> `check`. */
export function jobKey(name: string): string {
  const n = name.trim();
  const reusable = n.indexOf('(reusable)/');
  return reusable >= 0 ? n.slice(reusable + '(reusable)/'.length) : n.slice(n.indexOf('/') + 1);
}

/** Each job's result by jobKey. */
export function jobResults(run: ActRun): Record<string, string | undefined> {
  return Object.fromEntries([...run.jobs.values()].map((j) => [jobKey(j.job), j.result]));
}

/** The job whose jobKey is `key`; throws naming the jobs there are. */
export function jobOf(run: ActRun, key: string): JobRun {
  const j = [...run.jobs.values()].find((x) => jobKey(x.job) === key);
  if (!j) throw new Error(`no job ${key} in the run; jobs: ${[...run.jobs.keys()].map(jobKey).join(', ')}`);
  return j;
}

/** Fails with act's log tail unless act exited 0. */
export function expectSuccess(run: ActRun): void {
  if (run.code !== 0) throw new Error(`the run failed:\n${describe(run)}`);
}

// The act side of bench/act-kind.bench.mjs (run by it through bench/jest.config.mjs, the workflow
// tier's project: its helpers, stand-ins and leak check). The same check twice on the kind
// harness: `devpkg kind --settle 0s` from the CLI, and examples/workflows/devpkg-kind.yml on a
// pull request run by act with settle 0s, on the same consumer repository and change (antrea
// 1.5.3, as test/workflows/kind.test.ts) and the same machine inputs. It asserts only that both
// won and left nothing; the times go to $DEVPKG_BENCH_OUT as JSON for the .mjs to print.
//
// Times are taken by this process as lines arrive (act's own `time` field has whole seconds):
// the CLI from its spawn, act's job from its first log line naming the job. The verdict on both
// sides is the `verify` step's finishedAt in devpkg's results (the CLI's --json, the job's
// results.json artifact); the act side also records when its verdict line arrived (`NAMESPACE/antrea:
// won: ...`, the PackageInstall's).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { kindHarnessDown, kindHarnessIsUp, kindHarnessUp, type KindHarness } from '../test/integration/helpers/kind.js';
import { expectSuccess, jobOf, repoRoot } from '../test/workflows/helpers/act.js';
import { kindEnv, leftovers, machineFlags, withMachineInputs } from '../test/workflows/helpers/kind.js';
import { checkout, makeConsumer, makeWorld, pullRequestEvent, readArtifactFile, runIn, type Consumer, type World } from '../test/workflows/helpers/world.js';
import type { ResultsDocument } from '../src/report/artifact.js';
import type { PackageResult, StepRecord } from '../src/results.js';

const T = 1_800_000;
const REPS = Number(process.env.DEVPKG_BENCH_REPS || '1');
const BRANCH = 'one-package';

/** A line of output and when this process received it (ms since the epoch). */
interface Line {
  at: number;
  text: string;
}

/** Collects a stream's lines with their arrival times. */
function lines(stream: NodeJS.ReadableStream, into: Line[]): void {
  let rest = '';
  stream.on('data', (d: Buffer) => {
    const at = Date.now();
    const parts = (rest + d.toString()).split('\n');
    rest = parts.pop()!;
    for (const text of parts) into.push({ at, text });
  });
  stream.on('end', () => {
    if (rest) into.push({ at: Date.now(), text: rest });
  });
}

export interface CliSide {
  startedAt: number;
  exitedAt: number;
  verdictAt: number;
  result: Pick<PackageResult, 'name' | 'version' | 'verdict' | 'devVersion' | 'steps'>;
}

export interface ActSide {
  spawnedAt: number;
  jobStartedAt: number;
  verdictAt: number;
  verdictLineAt?: number;
  exitedAt: number;
  /** act's steps (stage + name): first and last line. */
  actSteps: Array<{ name: string; first: number; last: number }>;
  result: CliSide['result'];
}

const verifyFinished = (steps: StepRecord[] | undefined): number => {
  const at = steps?.find((s) => s.name === 'verify')?.finishedAt;
  if (!at) throw new Error(`no verify step finished in ${JSON.stringify(steps)}`);
  return Date.parse(at);
};
const pick = (r: PackageResult): CliSide['result'] => ({ name: r.name, version: r.version, verdict: r.verdict, devVersion: r.devVersion, steps: r.steps });

let kh: KindHarness;
let startedHere = false;
let w: World;
let c: Consumer;
const out: { cli: CliSide[]; act: ActSide[]; order: string[]; load: number[][] } = { cli: [], act: [], order: [], load: [] };

beforeAll(async () => {
  startedHere = !(await kindHarnessIsUp());
  kh = await kindHarnessUp();
  expect(leftovers(kh, /./)).toEqual({ clusters: [], containers: [] });
  w = await makeWorld('example', 'tce', 'devpkg-bench-act-kind-');
  c = makeConsumer(w, (name, text) => (name === 'devpkg-kind.yml' ? withMachineInputs(kh, text.replace(/^( *)settle: .*$/m, '$1settle: 0s'), /^ *mode: kind$/m) : text));
  checkout(c, BRANCH);
}, T);
afterAll(async () => {
  await w?.close();
  if (startedHere) await kindHarnessDown();
}, T);

async function cli(rep: number): Promise<CliSide> {
  const { path, env } = kindEnv(kh, w);
  const args = [join(repoRoot, 'dist', 'cli.js'), 'kind', '--repo', c.dir, '--base', c.base, '--head', c.heads[BRANCH]!, '--settle', '0s', '--timeout', '10m', '--results-dir', join(w.scratch, `cli-results-${rep}`), '--json', ...machineFlags(kh)];
  const stdout: Line[] = [];
  const stderr: Line[] = [];
  const startedAt = Date.now();
  const child = spawn(w.nodes['24']!, args, { cwd: c.dir, env: { ...process.env, ...env, PATH: path }, stdio: ['ignore', 'pipe', 'pipe'] });
  lines(child.stdout, stdout);
  lines(child.stderr, stderr);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const exitedAt = Date.now();
  if (code !== 0) throw new Error(`devpkg kind exited ${code}:\n${stderr.slice(-40).map((l) => l.text).join('\n')}`);
  const results = JSON.parse(stdout.map((l) => l.text).join('\n')) as PackageResult[];
  expect(results.map((r) => `${r.name}/${r.version} ${r.verdict}`)).toEqual(['antrea/1.5.3 won']);
  return { startedAt, exitedAt, verdictAt: verifyFinished(results[0]!.steps), result: pick(results[0]!) };
}

async function act(): Promise<ActSide> {
  const id = w.nextRunId();
  const seen: Line[] = [];
  let spawnedAt = 0;
  const run = await runIn(w, c.dir, '.github/workflows/devpkg-kind.yml', 'pull_request', pullRequestEvent(c, BRANCH), {
    runId: id,
    ...kindEnv(kh, w),
    timeoutMs: T,
    onStart: (child) => {
      spawnedAt = Date.now();
      lines(child.stdout!, seen);
      lines(child.stderr!, seen);
    },
  });
  const exitedAt = Date.now();
  expectSuccess(run);
  expect(JSON.parse(jobOf(run, 'verify').outputs.verdicts!)).toEqual({ 'antrea/1.5.3': 'won' });
  const entries = seen.flatMap((l) => {
    try {
      return l.text.startsWith('{') ? [{ at: l.at, e: JSON.parse(l.text) as Record<string, unknown> }] : [];
    } catch {
      return [];
    }
  });
  const ofJob = entries.filter((x) => typeof x.e.job === 'string');
  const steps = new Map<string, { name: string; first: number; last: number }>();
  for (const x of ofJob) {
    if (typeof x.e.step !== 'string') continue;
    const name = `${String(x.e.stage ?? '')} ${x.e.step}`.trim();
    const s = steps.get(name) ?? { name, first: x.at, last: x.at };
    s.last = x.at;
    steps.set(name, s);
  }
  const list = (JSON.parse(readArtifactFile(w, 'example/tce', id, 'devpkg-results', 'results.json')) as ResultsDocument).results;
  expect(list.map((r) => `${r.name}/${r.version} ${r.verdict}`)).toEqual(['antrea/1.5.3 won']);
  return {
    spawnedAt,
    jobStartedAt: ofJob[0]!.at,
    verdictAt: verifyFinished(list[0]!.steps),
    verdictLineAt: ofJob.find((x) => /\S\/antrea: won:/.test(String(x.e.msg ?? '')))?.at,
    exitedAt,
    actSteps: [...steps.values()],
    result: pick(list[0]!),
  };
}

test('the same check from the CLI and under act: both win, nothing is left (times to DEVPKG_BENCH_OUT)', async () => {
  for (let rep = 0; rep < REPS; rep++) {
    // Alternate which side goes first, so a trend in the machine's load falls on both.
    const sides = rep % 2 === 0 ? (['cli', 'act'] as const) : (['act', 'cli'] as const);
    for (const side of sides) {
      out.load.push(loadavg());
      if (side === 'cli') out.cli.push(await cli(rep));
      else out.act.push(await act());
      out.order.push(side);
      expect(leftovers(kh, /./)).toEqual({ clusters: [], containers: [] });
    }
  }
  out.load.push(loadavg());
  if (process.env.DEVPKG_BENCH_OUT) writeFileSync(process.env.DEVPKG_BENCH_OUT, JSON.stringify(out, null, 2));
}, T);

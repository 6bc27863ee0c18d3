// Running the harness's tools (imgpkg, ytt, skopeo, kubectl, controlplane.sh) from tests.
// No shell: argv goes to the program as it is.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const controlplaneScript = join(repoRoot, 'test', 'harness', 'controlplane.sh');

/** A short id unique to one test file's run, for namespaces and repository paths. */
export function newRunId(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
}

/** devpkg's CLI run in process in `cwd`, with its exit code and what it printed. */
export async function runCliIn(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { runCli } = await import('../../../src/cli.js');
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: process.env, cwd });
  return { code, stdout, stderr };
}

/**
 * A new temp folder, filled by `fill`. When `fill` throws, the folder is removed before the error
 * goes on: no caller ever gets it to remove.
 */
export async function tempFolder<T>(prefix: string, fill: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  try {
    return await fill(dir);
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run a program with the harness environment; rejects on a non-zero exit unless allowFail. */
export function runTool(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; allowFail?: boolean; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      cmd,
      args,
      {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        timeout: opts.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        if (error && !opts.allowFail) {
          reject(
            new Error(`${cmd} ${args.join(' ')} failed (${error.code ?? error.message}):\n${stderr}\n${stdout}`),
          );
          return;
        }
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/** `controlplane.sh restart-apiserver`: stop kube-apiserver and start it with the same flags and port. */
export async function restartApiserver(): Promise<void> {
  await runTool('bash', [controlplaneScript, 'restart-apiserver'], { timeoutMs: 180_000 });
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS's pick). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

// Harness process logs for failure messages: etcd, kube-apiserver, kube-controller-manager,
// registry (and kapp-controller when it runs), all in $DEVPKG_HARNESS_DIR/logs/*.log.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The last `lines` lines of every harness log (or only of `only`), as one printable text. */
export function harnessLogTail(lines = 40, only?: string[]): string {
  const dir = join(process.env.DEVPKG_HARNESS_DIR ?? '/tmp/devpkg-harness', 'logs');
  if (!existsSync(dir)) return `(no harness logs: ${dir} does not exist)`;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .filter((f) => !only || only.includes(f.replace(/\.log$/, '')))
    .sort();
  return files
    .map((f) => {
      const text = readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).slice(-lines).join('\n');
      return `----- ${join(dir, f)} (last ${lines} lines) -----\n${text}`;
    })
    .join('\n');
}

/**
 * Wrap a test body so that a failure carries the tail of the harness logs:
 * `test('x', withHarnessLogs(async () => { ... }))`.
 */
export function withHarnessLogs<T>(fn: () => Promise<T>, lines = 40): () => Promise<T> {
  return async () => {
    try {
      return await fn();
    } catch (err) {
      const logs = harnessLogTail(lines);
      if (err instanceof Error) {
        err.message = `${err.message}\n\n${logs}`;
        throw err;
      }
      throw new Error(`${String(err)}\n\n${logs}`);
    }
  };
}

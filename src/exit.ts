/**
 * The process ends when devpkg is done, whatever is still open: a watch connection the server
 * has not answered yet, a keep-alive socket, a timer of a library. stdout is flushed first
 * (large JSON goes to pipes asynchronously); if the flush never completes (a reader that stopped
 * reading), a fallback timer ends the process anyway. The timer is unref'd: it never delays an
 * exit that happens by itself.
 */
export interface ExitTarget {
  stdout: { write(text: string, cb: () => void): unknown };
  exit(code: number): never | void;
}

export const FLUSH_GRACE_MS = 5000;

export function exitWhenFlushed(code: number, target: ExitTarget = process): void {
  let done = false;
  const exit = (): void => {
    if (done) return;
    done = true;
    target.exit(code);
  };
  setTimeout(exit, FLUSH_GRACE_MS).unref();
  target.stdout.write('', exit);
}

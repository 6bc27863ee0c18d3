/**
 * SIGINT and SIGTERM during a verification: the first one aborts the wait (the verifier then
 * writes an `interrupted` result, diagnostics and the summary); a second one exits at once.
 * The exit code is the shell's for the signal: 130 for SIGINT, 143 for SIGTERM.
 */
export const SIGNAL_EXIT_CODES: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

type SignalName = keyof typeof SIGNAL_EXIT_CODES;

/** The part of `process` this needs; tests hand in an EventEmitter. */
export interface SignalSource {
  on(event: SignalName, listener: () => void): unknown;
  off(event: SignalName, listener: () => void): unknown;
  exit(code: number): never | void;
}

export interface Interruption {
  /** Aborted on the first signal; its reason is the signal's name. */
  readonly signal: AbortSignal;
  /** The signal received, if any. */
  received(): SignalName | undefined;
  /** 130/143 once a signal was received. */
  exitCode(): number | undefined;
  /** Removes the handlers (the default behaviour of the signals comes back). */
  dispose(): void;
}

export function watchSignals(opts: { source?: SignalSource; log?: (m: string) => void } = {}): Interruption {
  const source = opts.source ?? process;
  const controller = new AbortController();
  let got: SignalName | undefined;
  const handlers = new Map<SignalName, () => void>();
  for (const name of Object.keys(SIGNAL_EXIT_CODES) as SignalName[]) {
    const handler = (): void => {
      if (got) {
        opts.log?.(`devpkg: ${name} again; exiting at once`);
        source.exit(SIGNAL_EXIT_CODES[name]);
        return;
      }
      got = name;
      opts.log?.(`devpkg: ${name}: stopping the wait; writing the result and diagnostics (send it again to exit at once)`);
      controller.abort(name);
    };
    handlers.set(name, handler);
    source.on(name, handler);
  }
  return {
    signal: controller.signal,
    received: () => got,
    exitCode: () => (got ? SIGNAL_EXIT_CODES[got] : undefined),
    dispose: () => {
      for (const [name, handler] of handlers) source.off(name, handler);
    },
  };
}

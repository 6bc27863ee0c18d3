/**
 * Is the API server still answering while every watch is silent? A watch says nothing when nothing
 * changes, and also when the API server stops answering with its connections left open (its node
 * paused or frozen: TCP still holds, nothing comes): then the watches just hang. So once the
 * watches have been silent for `silenceMs`, one `GET /readyz` asks, with a time limit; any answer
 * (ready or not) means the server is there. No answer starts a gap, probed again every `retryMs`
 * until it answers; then the gap (from, to) is reported and the watches are reopened from their
 * last resourceVersion. This is the only request the verifier makes on a timer, and only while
 * the watches are silent: nothing is asked while events come.
 */

export interface Gap {
  /** When the probe that got no answer was sent. */
  from: Date;
  to: Date;
  cause: string;
}

export interface LivenessOptions {
  /** One request to the API server; resolves on any answer, rejects on none (it is aborted at the time limit). */
  probe(signal: AbortSignal): Promise<void>;
  onDown(from: Date, cause: string): void;
  onUp(gap: Gap): void;
  silenceMs?: number;
  probeTimeoutMs?: number;
  retryMs?: number;
  now?: () => Date;
}

export const SILENCE_MS = 5000;
export const PROBE_TIMEOUT_MS = 5000;
export const RETRY_MS = 1000;

export class ApiServerLiveness {
  private timer?: NodeJS.Timeout;
  private inFlight?: AbortController;
  private down?: { from: Date; cause: string };
  private stopped = true;
  /** Probes sent; read by tests. */
  probes = 0;

  constructor(private readonly o: LivenessOptions) {}

  private get now(): Date {
    return this.o.now?.() ?? new Date();
  }

  start(): void {
    this.stopped = false;
    this.arm(this.o.silenceMs ?? SILENCE_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.inFlight?.abort();
  }

  /** Something came from the API server (an event, a list, a bookmark): the silence starts again. */
  heard(): void {
    if (this.stopped || this.down || this.inFlight) return;
    this.arm(this.o.silenceMs ?? SILENCE_MS);
  }

  /** The gap going on, if any. */
  current(): { from: Date; cause: string } | undefined {
    return this.down;
  }

  private arm(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.check();
    }, ms);
  }

  private async check(): Promise<void> {
    if (this.stopped) return;
    const limit = this.o.probeTimeoutMs ?? PROBE_TIMEOUT_MS;
    const ctl = new AbortController();
    this.inFlight = ctl;
    const sent = this.now;
    this.probes++;
    const timeout = setTimeout(() => ctl.abort(), limit);
    let cause: string | undefined;
    try {
      await this.o.probe(ctl.signal);
    } catch (err) {
      cause = ctl.signal.aborted ? `GET /readyz: no answer within ${limit % 1000 === 0 ? `${limit / 1000}s` : `${limit}ms`}` : `GET /readyz: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    } finally {
      clearTimeout(timeout);
      this.inFlight = undefined;
    }
    if (this.stopped) return;
    if (cause === undefined) {
      if (this.down) {
        const gap: Gap = { from: this.down.from, to: this.now, cause: this.down.cause };
        this.down = undefined;
        this.o.onUp(gap);
      }
      this.arm(this.o.silenceMs ?? SILENCE_MS);
      return;
    }
    if (!this.down) {
      this.down = { from: sent, cause };
      this.o.onDown(sent, cause);
    }
    this.arm(this.o.retryMs ?? RETRY_MS);
  }
}

/**
 * ApiServerLiveness with a probe the test answers: nothing is asked while events come; after a
 * silence one probe; no answer opens a gap, named when the server answers again.
 */
import { afterEach, describe, expect, test } from '@jest/globals';
import { ApiServerLiveness, type Gap } from './liveness.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function until(pred: () => boolean, ms = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const tick = (): void => {
      if (pred()) return resolve();
      if (Date.now() - t0 > ms) return reject(new Error('condition not met in time'));
      setTimeout(tick, 5);
    };
    tick();
  });
}

describe('ApiServerLiveness', () => {
  let l: ApiServerLiveness | undefined;
  afterEach(() => l?.stop());

  test('a server that stops answering: one gap, from the unanswered probe to the first answer', async () => {
    let answering = true;
    const events: string[] = [];
    const gaps: Gap[] = [];
    l = new ApiServerLiveness({
      // A paused server: the request is never answered; only the time limit ends it.
      probe: (signal) =>
        answering
          ? Promise.resolve()
          : new Promise((_, reject) => signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))),
      onDown: (_from, cause) => events.push(`down: ${cause}`),
      onUp: (g) => {
        events.push('up');
        gaps.push(g);
      },
      silenceMs: 20,
      probeTimeoutMs: 30,
      retryMs: 10,
    });
    l.start();
    await until(() => l!.probes >= 2);
    expect(events).toEqual([]);
    answering = false;
    await until(() => events.length === 1);
    expect(events).toEqual(['down: GET /readyz: no answer within 30ms']);
    expect(l.current()?.cause).toBe('GET /readyz: no answer within 30ms');
    const probes = l.probes;
    await until(() => l!.probes >= probes + 2);
    // Still one gap while it lasts.
    expect(events).toHaveLength(1);
    answering = true;
    await until(() => events.length === 2);
    expect(events[1]).toBe('up');
    expect(gaps[0]!.to.getTime()).toBeGreaterThanOrEqual(gaps[0]!.from.getTime());
    expect(l.current()).toBeUndefined();
  });

  test('a refused connection is a gap too, with its cause', async () => {
    let refuse = true;
    const down: string[] = [];
    const gaps: Gap[] = [];
    l = new ApiServerLiveness({
      probe: () => (refuse ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6443\nmore')) : Promise.resolve()),
      onDown: (_from, cause) => down.push(cause),
      onUp: (g) => gaps.push(g),
      silenceMs: 10,
      retryMs: 10,
    });
    l.start();
    await until(() => down.length === 1);
    refuse = false;
    await until(() => gaps.length === 1);
    expect(down).toEqual(['GET /readyz: connect ECONNREFUSED 127.0.0.1:6443']);
    expect(gaps[0]!.cause).toBe(down[0]);
  });

  test('nothing is asked while the watches keep hearing from the server', async () => {
    l = new ApiServerLiveness({ probe: () => Promise.resolve(), onDown: () => undefined, onUp: () => undefined, silenceMs: 2000 });
    l.start();
    for (let i = 0; i < 10; i++) {
      l.heard();
      await sleep(20);
    }
    expect(l.probes).toBe(0);
  });

  test('stopped: no probe, and one in flight is aborted', async () => {
    let aborted = false;
    l = new ApiServerLiveness({
      probe: (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => ((aborted = true), reject(new Error('aborted'))))),
      onDown: () => undefined,
      onUp: () => undefined,
      silenceMs: 5,
      probeTimeoutMs: 60_000,
    });
    l.start();
    await until(() => l!.probes === 1);
    l.stop();
    await until(() => aborted);
    await sleep(30);
    expect(l.probes).toBe(1);
  });
});

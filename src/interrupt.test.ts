import { EventEmitter } from 'node:events';
import { jest } from '@jest/globals';
import { exitWhenFlushed } from './exit.js';
import { watchSignals, type SignalSource } from './interrupt.js';

function source(): SignalSource & EventEmitter & { exits: number[] } {
  const e = new EventEmitter() as EventEmitter & SignalSource & { exits: number[] };
  e.exits = [];
  e.exit = (code: number) => {
    e.exits.push(code);
  };
  return e;
}

test.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s aborts the wait once, with the signal as reason, and gives exit code %d', (name, code) => {
  const src = source();
  const logs: string[] = [];
  const i = watchSignals({ source: src, log: (m) => logs.push(m) });
  expect(i.signal.aborted).toBe(false);
  expect(i.exitCode()).toBeUndefined();
  src.emit(name);
  expect(i.signal.aborted).toBe(true);
  expect(i.signal.reason).toBe(name);
  expect(i.received()).toBe(name);
  expect(i.exitCode()).toBe(code);
  expect(src.exits).toEqual([]);
  expect(logs).toEqual([`devpkg: ${name}: stopping the wait; writing the result and diagnostics (send it again to exit at once)`]);
  i.dispose();
});

test('a second signal exits at once with the code of the first', () => {
  const src = source();
  const i = watchSignals({ source: src });
  src.emit('SIGINT');
  src.emit('SIGTERM');
  expect(src.exits).toEqual([143]);
  expect(i.exitCode()).toBe(130);
  i.dispose();
});

test('dispose removes the handlers', () => {
  const src = source();
  const i = watchSignals({ source: src });
  i.dispose();
  expect(src.listenerCount('SIGINT') + src.listenerCount('SIGTERM')).toBe(0);
});

describe('exitWhenFlushed', () => {
  afterEach(() => jest.useRealTimers());

  test('exits with the code once stdout has flushed', () => {
    const exits: number[] = [];
    exitWhenFlushed(3, { stdout: { write: (_t, cb) => cb() }, exit: (c) => void exits.push(c) });
    expect(exits).toEqual([3]);
  });

  test('exits even when the flush never completes (a reader that stopped reading), and only once', () => {
    jest.useFakeTimers();
    const exits: number[] = [];
    let flush: (() => void) | undefined;
    exitWhenFlushed(1, { stdout: { write: (_t, cb) => (flush = cb) }, exit: (c) => void exits.push(c) });
    expect(exits).toEqual([]);
    jest.runOnlyPendingTimers();
    expect(exits).toEqual([1]);
    flush!();
    expect(exits).toEqual([1]);
  });
});

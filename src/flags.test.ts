import { joinNegativeValues } from './commands/io.js';
import { MAX_DURATION_MS, parseDuration, parseRegistryFlag, parseVersionFlag, parseWaits } from './flags.js';

test.each([
  ['90', 90_000],
  ['90s', 90_000],
  ['1h30m', 5_400_000],
  ['250ms', 250],
  ['0', 0],
  ['24h', MAX_DURATION_MS],
])('duration %s is %d ms', (text, ms) => {
  expect(parseDuration(text, '--timeout')).toBe(ms);
});

test('a duration one millisecond over 24h is refused (Node timers overflow far later, but no run needs it)', () => {
  expect(() => parseDuration('24h1ms', '--timeout')).toThrow('--timeout: "24h1ms" is longer than 24h');
});

test('waits: defaults, and a settle window equal to the time-out is allowed', () => {
  expect(parseWaits({}, { settle: '--settle', timeout: '--timeout' })).toEqual({ settleMs: 60_000, timeoutMs: 600_000 });
  expect(parseWaits({ settle: '5m', timeout: '5m' }, { settle: '--settle', timeout: '--timeout' })).toEqual({ settleMs: 300_000, timeoutMs: 300_000 });
});

test('a string flag followed by a negative value gets it as its value; booleans and "--" are left alone', () => {
  const opts = { timeout: { type: 'string' as const }, json: { type: 'boolean' as const } };
  expect(joinNegativeValues(['--timeout', '-5m', '--json'], opts)).toEqual(['--timeout=-5m', '--json']);
  expect(joinNegativeValues(['--json', '-5m'], opts)).toEqual(['--json', '-5m']);
  expect(joinNegativeValues(['--', '--timeout', '-5m'], opts)).toEqual(['--', '--timeout', '-5m']);
});

test.each(['1.5.4', '1.5.4-dev.1', '0.24.4+update.2', '3.22.2-dev.12.3'])('version %s is accepted as given', (v) => {
  expect(parseVersionFlag(v, '--dev-version')).toBe(v);
});

test.each([
  ['localhost:5001/devpkg', 'localhost:5001/devpkg'],
  ['ghcr.io/my-org/dev/', 'ghcr.io/my-org/dev'],
  ['172.18.0.2:5000', '172.18.0.2:5000'],
  ['[::1]:5000/x', '[::1]:5000/x'],
])('registry %s is %s', (text, want) => {
  expect(parseRegistryFlag(text, '--registry')).toBe(want);
});

import { describe, expect, test } from '@jest/globals';
import { joinNegativeValues } from './commands/io.js';
import { formatDuration, MAX_DURATION_MS, parseDuration, parseList, parsePackageList, parseRegistry, parseVersionFlag, parseWaits } from './flags.js';
import { UsageError } from './errors.js';
import { parseInputs } from './inputs.js';
import { inputsFrom } from '../test/support/inputs.js';

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

test.each([
  [600_000, '10m'],
  [90_000, '90s'],
  [1_500, '1500ms'],
  [0, '0s'],
  [3_600_000, '60m'],
])('a limit of %d ms is written %s, which parses back to it', (ms, text) => {
  expect(formatDuration(ms)).toBe(text);
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

describe('parseRegistry: the one parser of registry text (--registry, --cluster-registry and their inputs)', () => {
  test.each([
    ['localhost:5001/devpkg', { host: 'localhost:5001', path: 'devpkg' }],
    ['ghcr.io/my-org/dev/', { host: 'ghcr.io', path: 'my-org/dev' }],
    ['172.18.0.2:5000', { host: '172.18.0.2:5000', path: '' }],
    ['[::1]:5000/x', { host: '[::1]:5000', path: 'x' }],
    ['[::1]:5001/', { host: '[::1]:5001', path: '' }],
    [' kind-registry:5000/devpkg ', { host: 'kind-registry:5000', path: 'devpkg' }],
  ])('%s is %j', (text, want) => {
    expect(parseRegistry(text, '--registry')).toEqual(want);
  });
  test.each<[string, RegExp]>([
    ['', /^--cluster-registry is empty; give HOST\[:PORT\]\[\/PATH\]/],
    ['http://172.18.0.3:5000', /^--cluster-registry: "http:\/\/172\.18\.0\.3:5000" has a scheme \(http:\/\/\)/],
    ['bad host!/x', /^--cluster-registry: "bad host!\/x" is not a registry: it contains a space, "!"/],
    ['devpkg/antrea', /^--cluster-registry: "devpkg\/antrea" does not start with a registry host/],
    ['172.18.0.3:5000/Upper', /^--cluster-registry: repository "172\.18\.0\.3:5000\/Upper": path component "Upper" is not valid/],
  ])('refuses %j', (text, msg) => {
    expect(() => parseRegistry(text, '--cluster-registry')).toThrow(msg);
  });
});

describe('parseList: the one list parser of the CLI flags and the action inputs (packages, ignore)', () => {
  test.each<[string, string[]]>([
    ['antrea/1.5.3,calico/3.22.1', ['antrea/1.5.3', 'calico/3.22.1']],
    ['antrea/1.5.3\ncalico/3.22.1\n', ['antrea/1.5.3', 'calico/3.22.1']],
    [' antrea/1.5.3 , calico/3.22.1 ,\n\n pinniped/0.12.1', ['antrea/1.5.3', 'calico/3.22.1', 'pinniped/0.12.1']],
    ['# the CNIs, both\nantrea/1.5.3\n  # calico/3.22.1\n', ['antrea/1.5.3']],
    ['**/*.md,docs/**', ['**/*.md', 'docs/**']],
    ['', []],
    [' , \n', []],
  ])('%j', (text, items) => {
    expect(parseList(text)).toEqual(items);
  });

  test('--packages and input packages take the same text the same way, and name themselves when it is wrong', () => {
    const text = 'antrea/1.5.3, calico/3.22.1\n# not this one\npinniped/0.12.1';
    const fromInputs = parseInputs(inputsFrom({ packages: text })).packages;
    expect(parsePackageList(text, '--packages')).toEqual(fromInputs);
    expect(fromInputs).toEqual(['antrea/1.5.3', 'calico/3.22.1', 'pinniped/0.12.1']);
    expect(() => parsePackageList('antrea/1.5.3\ncalico', '--packages')).toThrow(new UsageError('--packages: "calico" is not NAME/VERSION (e.g. antrea/1.5.3)'));
    expect(() => parseInputs(inputsFrom({ packages: 'antrea/1.5.3\ncalico' }))).toThrow(new UsageError('input packages: "calico" is not NAME/VERSION (e.g. antrea/1.5.3)'));
  });

  test('input ignore is read the same way', () => {
    expect(parseInputs(inputsFrom({ ignore: '**/*.md\n# docs too\ndocs/**, *.txt' })).ignore).toEqual(['**/*.md', 'docs/**', '*.txt']);
    expect(parseInputs(inputsFrom({})).ignore).toEqual(['**/*.md']);
  });
});

// scripts/test-tiers.mjs is `npm test`: the three tiers in order, stopping at the first that
// fails, each timed into DEVPKG_PHASES_FILE for .ci/run's summary. Run here with an `npm` of ours
// first on PATH that records what it was asked and fails the tier named by FAIL_TIER.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const script = path.resolve('scripts/test-tiers.mjs');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'devpkg-tiers-'));
  writeFileSync(
    path.join(dir, 'npm'),
    '#!/bin/sh\necho "$*" >> "$CALLS"\n[ "$2" = "test:$FAIL_TIER" ] && exit 7\nexit 0\n',
  );
  chmodSync(path.join(dir, 'npm'), 0o755);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function run(env: Record<string, string>) {
  const calls = path.join(dir, 'calls');
  const phases = path.join(dir, 'phases');
  writeFileSync(calls, '');
  writeFileSync(phases, '');
  const r = spawnSync(process.execPath, [script], {
    encoding: 'utf8',
    env: { PATH: `${dir}:${process.env.PATH}`, CALLS: calls, DEVPKG_PHASES_FILE: phases, ...env },
  });
  return { code: r.status, stderr: r.stderr, calls: readFileSync(calls, 'utf8').trim().split('\n').filter(Boolean), phases: readFileSync(phases, 'utf8') };
}

test('runs unit, integration, workflows in order and times each', () => {
  const r = run({});
  expect(r.code).toBe(0);
  expect(r.calls).toEqual(['run test:unit', 'run test:integration', 'run test:workflows']);
  expect(r.phases).toMatch(/^unit tier +\d+s\nintegration tier +\d+s\nworkflows tier +\d+s\n$/);
});

test('stops at the first tier that fails, with its exit code, and marks it', () => {
  const r = run({ FAIL_TIER: 'integration' });
  expect(r.code).toBe(7);
  expect(r.calls).toEqual(['run test:unit', 'run test:integration']);
  expect(r.phases).toMatch(/integration tier +\d+s {2}FAILED \(exit 7\)\n$/);
});

test('DEVPKG_TIERS picks tiers; an unknown one is refused by name', () => {
  expect(run({ DEVPKG_TIERS: 'workflows,unit' }).calls).toEqual(['run test:unit', 'run test:workflows']);
  const bad = run({ DEVPKG_TIERS: 'unit,smoke' });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('DEVPKG_TIERS: smoke is not a tier');
  expect(bad.calls).toEqual([]);
});

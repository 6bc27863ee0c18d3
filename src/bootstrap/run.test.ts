import type { PackageResult } from '../results.js';
import { createCommandText, explainWithPhases, TKG2_NOTE } from './run.js';

const r = (verdict: PackageResult['verdict']): PackageResult => ({ name: 'antrea', version: '1.5.3', refName: 'a', targetRefName: 'a', devVersion: 'D', mode: 'bootstrap', verdict, reason: 'R', timeline: [] });
const sightings = { 2: { phase: 2 as const, at: '2026-01-01T00:00:02Z', seen: '', installed: 'D' }, 3: { phase: 3 as const, at: '2026-01-01T00:00:05Z', seen: '' } };
const tracker = (installs: { version: string; at: string }[], attempts: { version: string; at: string }[] = []) => ({ installs, attempts, sighting: (p: 1 | 2 | 3) => (sightings as unknown as Record<number, (typeof sightings)[2]>)[p] });

describe('explainWithPhases', () => {
  test('a win says it held after phase 3', () => {
    expect(explainWithPhases(r('won'), tracker([{ version: 'D', at: '2026-01-01T00:00:01Z' }]), 'D', false)).toBe('R; the dev version held after phase 3 (seen 2026-01-01T00:00:05Z)');
  });
  test('replaced after phase 3: lost in phase 3', () => {
    const t = tracker([{ version: 'D', at: '2026-01-01T00:00:01Z' }, { version: 'X', at: '2026-01-01T00:00:06Z' }]);
    expect(explainWithPhases(r('not-selected'), t, 'D', false)).toMatch(/lost in phase 3: the dev version D was installed at 2026-01-01T00:00:01Z, then X replaced it at 2026-01-01T00:00:06Z/);
  });
  test('attempted after phase 2, before phase 3 objects were seen: still phase 3', () => {
    const t = tracker([{ version: 'D', at: '2026-01-01T00:00:01Z' }], [{ version: 'D', at: '2026-01-01T00:00:01Z' }, { version: 'X', at: '2026-01-01T00:00:03Z' }]);
    expect(explainWithPhases(r('lost'), t, 'D', false)).toMatch(/lost in phase 3: .* then X replaced it at 2026-01-01T00:00:03Z/);
  });
  test('replaced before any phase was seen: phase 1', () => {
    const t = tracker([{ version: 'D', at: '2026-01-01T00:00:00Z' }, { version: 'X', at: '2026-01-01T00:00:01Z' }]);
    expect(explainWithPhases(r('lost'), t, 'D', false)).toMatch(/lost in phase 1/);
  });
  test('findings follow the phase story, before the TKG 2.x note', () => {
    const s = explainWithPhases(r('lost'), tracker([{ version: 'D', at: '2026-01-01T00:00:01Z' }]), 'D', true, [{ text: 'F1', verdict: 'lost' }, { text: 'F2' }]);
    expect(s).toBe(`R; the dev version was installed at 2026-01-01T00:00:01Z (phase 1) but did not hold through the settle window; F1; F2; ${TKG2_NOTE}`);
  });
  test('seen together with phase 2 (already there when the tracker started): phase 2', () => {
    const t = tracker([{ version: 'D', at: '2026-01-01T00:00:02Z' }]);
    expect(explainWithPhases(r('lost'), t, 'D', false)).toMatch(/installed at 2026-01-01T00:00:02Z \(phase 2\)/);
  });
  test('never installed, on TKG 2.x', () => {
    const s = explainWithPhases(r('not-selected'), tracker([{ version: 'X', at: '2026-01-01T00:00:01Z' }]), 'D', true);
    expect(s).toMatch(/the dev version was never installed/);
    expect(s.endsWith(TKG2_NOTE)).toBe(true);
  });
});

test('createCommandText', () => {
  expect(createCommandText('tanzu', '/c.yaml')).toBe('SUPPRESS_PROVIDERS_UPDATE=1 tanzu management-cluster create -i docker --file /c.yaml --yes');
  expect(createCommandText('tanzu', '/c.yaml', '/h')).toMatch(/^HOME=\/h SUPPRESS/);
});

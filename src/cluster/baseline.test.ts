import { describe, expect, test } from '@jest/globals';
import { faultEntries } from './baseline.js';

describe('faultEntries', () => {
  test('only what the wait went through: kapp-controller away and back, API server gaps', () => {
    const timeline = [
      { at: 'T1', object: 'PackageInstall', condition: 'Reconciling' },
      { at: 'T2', object: 'kapp-controller', message: 'pod kapp-controller/kapp-controller-a-1 was deleted (at T2); ...' },
      { at: 'T3', object: 'App', condition: 'ReconcileFailed' },
      { at: 'T4', object: 'API server', message: 'not answering from T3 to T4 (...)' },
      { at: 'T5', object: 'Pod', condition: 'ErrImagePull' },
    ];
    expect(faultEntries(timeline).map((t) => t.at)).toEqual(['T2', 'T4']);
  });
});

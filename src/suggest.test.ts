import { expect, test } from '@jest/globals';
import { closest, editDistance } from './suggest.js';

test.each<[string, string, number]>([
  ['plan', 'plan', 0],
  ['plna', 'plan', 1],
  ['rpo', 'repo', 1],
  ['repo', 'rep', 1],
  ['kitten', 'sitting', 3],
  ['', 'dev', 3],
  ['ca', 'abc', 3],
])('editDistance(%s, %s) = %d', (a, b, d) => {
  expect(editDistance(a, b)).toBe(d);
  expect(editDistance(b, a)).toBe(d);
});

const COMMANDS = ['plan', 'detect', 'select', 'derive', 'overlay', 'push', 'kind', 'dev', 'verify', 'bootstrap', 'completion', 'help', 'version'];

test.each<[string, string | undefined]>([
  ['plna', 'plan'],
  ['PLAN', 'plan'],
  ['detcet', 'detect'],
  ['veirfy', 'verify'],
  ['bootstap', 'bootstrap'],
  ['completoin', 'completion'],
  ['verison', 'version'],
  ['dve', 'dev'],
  ['deploy', undefined],
  ['x', undefined],
  ['build', undefined],
])('closest(%s) among the commands is %s', (word, expected) => {
  expect(closest(word, COMMANDS)).toBe(expected);
});

test.each<[string, number, string | undefined]>([
  ['packages-dri', 2, 'packages-dir'],
  ['pakcages-dri', 2, 'packages-dir'],
  ['pkgs-dir', 2, undefined],
  ['setle', 0, undefined],
  ['setle', 1, 'settle'],
])('closest(%s) with at most %d edits among some keys is %s', (word, max, expected) => {
  expect(closest(word, ['packages-dir', 'settle', 'layout'], max)).toBe(expected);
});

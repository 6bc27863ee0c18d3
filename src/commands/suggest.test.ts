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

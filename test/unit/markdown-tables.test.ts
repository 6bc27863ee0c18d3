// Every row of every Markdown table in README.md and docs/*.md has as many cells as its header:
// a row a cell short renders with the rest of its text in the wrong columns (one too many is
// dropped). Cells are split as GitHub splits them (test/support/markdown.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { misshapenTableRows, tableCells } from '../support/markdown.js';

const FILES = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

test.each(FILES)("%s: every table row has its header's cell count", (file) => {
  expect(misshapenTableRows(file, readFileSync(file, 'utf8'))).toEqual([]);
});

test('the check finds the tables, and refuses a row a cell short or long', () => {
  const rows = FILES.flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter((l) => /^\|(\s*:?-+:?\s*\|)+\s*$/.test(l));
  expect(rows.length).toBeGreaterThan(5);
  const md = [
    '| a | b | c |',
    '|---|---|---|',
    '| `x \\| y` | 2 | 3 |',
    '| one | two |',
    '| `p | q` | 2 | 3 |',
    '',
    '```',
    '| not | a table |',
    '|---|',
    '| x |',
    '```',
    '> | quoted | table |',
    '> |---|---|',
    '> | one cell |',
  ].join('\n');
  expect(misshapenTableRows('t.md', md)).toEqual(['t.md:4: 2 cells, the header has 3', 't.md:5: 4 cells, the header has 3', 't.md:14: 1 cells, the header has 2']);
  expect(tableCells('| `a \\| b` | c |')).toEqual(['`a \\| b`', 'c']);
});

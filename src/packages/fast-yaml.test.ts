import { describe, expect, test } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fastDocuments } from './fast-yaml.js';
import { parseDocs, type ParsedDoc } from './model.js';

/** What a reading gives, in a form toEqual compares: values and every path's line, or the error. */
function reading(text: string, fast: boolean): { docs?: Array<{ value: unknown; lines: Record<string, number> }>; error?: string } {
  let docs: ParsedDoc[];
  try {
    docs = parseDocs(text, 'f.yaml', fast);
  } catch (err) {
    return { error: (err as Error).message };
  }
  return { docs: docs.map((d) => ({ value: d.value, lines: { ...d.lines } })) };
}

const SCALARS = [
  '0755', '0o755', '0x1F', '0b101', '1_000', '+12', '-0', '.5', '1.', '1e3', '1E+3', '-.inf', '.Inf', '.NaN', 'NaN', 'inf',
  'yes', 'no', 'on', 'off', 'y', 'True', 'TRUE', 'tRUE', '~', 'null', 'Null', 'NULL', 'nUll', '2001-12-14', '12:30:45', '1:20',
  '0.1.2', '1.0', 'v1.0', '007', '08', '0o8', '0xG', '123456789012345678901234567890', '-0x1', '+0o7', '+.5', '-1e-3', '1e', '0e0',
  '=', '<<', '"a\\tb"', "'it''s'", 'a #b', 'a#b', '" x "', '"\\x41"', '"\\u00e9"', '"\\N\\_\\/"', '1.5.3+vmware.1', '>-\n  folded\n  text\n\n  more',
  '|\n  lit\n', '|2-\n    indented\n', '>+\n  kept\n\n', 'plain\n  continued', '"multi\n  line"', "'single\n\n  para'", '[1, "2", c]', '{a: 1, b: [x]}',
  '', '# only a comment',
];

describe('js-yaml reads what the yaml library reads', () => {
  test.each(SCALARS)('v: %j', (scalar) => {
    const text = `a: 1\nv: ${scalar.replace(/\n/g, '\n  ')}\nlist:\n  - ${scalar.includes('\n') ? 'x' : scalar}\n`;
    expect(reading(text, true)).toEqual(reading(text, false));
  });

  test('documents, comments, nesting, empty values and lines: the same values and the same line for every path', () => {
    const text = [
      '# a comment first',
      '---',
      'apiVersion: data.packaging.carvel.dev/v1alpha1',
      'kind: Package',
      'metadata:',
      '  name: web.example.com.1.0.0  # trailing',
      'spec:',
      '  empty:',
      '  version: 1.0.0',
      '  template:',
      '    spec:',
      '      fetch:',
      '      - imgpkgBundle:',
      '          image: reg/x@sha256:0000',
      '      -',
      '        git: {url: "https://example.com", ref: main}',
      '      deploy: [{kapp: {}}]',
      '  valuesSchema:',
      '    openAPIv3:',
      '      description: |',
      '        several',
      '        lines',
      '      next:',
      '        plain on the next line',
      '---',
      '---',
      'kind: PackageMetadata',
      '',
    ].join('\n');
    const fast = reading(text, true);
    expect(fast).toEqual(reading(text, false));
    expect(fast.docs?.[0]?.lines).toMatchObject({ '': 3, 'metadata.name': 6, 'spec.version': 9, 'spec.template.spec.fetch.0.imgpkgBundle.image': 14, 'spec.valuesSchema.openAPIv3.next': 24 });
    expect(fastDocuments(text)).toBeDefined();
  });

  test.each([
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 5\n'],
    ['an explicit key', '? a\n: 1\n'],
    ['a collection as a key', '[a, b]: 1\n'],
    ['a YAML 1.1 directive', '%YAML 1.1\n---\na: yes\n'],
    ['a duplicate key (the library names it and its line)', 'a: 1\nb: 2\na: 3\n'],
    ['a syntax error', 'a: [1, 2\nb: 3\n'],
  ])('%s: left to the yaml library, which reads it as before', (_n, text) => {
    expect(fastDocuments(text)).toBeUndefined();
    expect(reading(text, true)).toEqual(reading(text, false));
  });

  test('a large Package (a 750-key map, as the plan bench makes them) is read on the fast path, the same', () => {
    const keys = Array.from({ length: 750 }, (_, i) => `    key${i}: value ${i} "q" ${i % 7 === 0 ? 'true' : i}`).join('\n');
    const text = `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: p.example.com.1.0.0\nspec:\n  values:\n${keys}\n`;
    expect(fastDocuments(text)).toBeDefined();
    expect(reading(text, true)).toEqual(reading(text, false));
  });

  // Every YAML file of this repository's test data and examples, and the real TKG providers tree
  // beside it (../shared/fixtures) when it is there: read the same both ways.
  const repo = new URL('../..', import.meta.url).pathname;
  const roots = [repo, process.env.DEVPKG_SHARED_DIR ? join(process.env.DEVPKG_SHARED_DIR, 'fixtures') : join(repo, '..', 'shared', 'fixtures')];
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e.name)) files.push(p);
    }
  };
  for (const r of roots) if (existsSync(r)) walk(r);

  test('the corpus: every YAML file here reads the same both ways, most on the fast path', () => {
    expect(files.length).toBeGreaterThan(50);
    const differ: string[] = [];
    let fastCount = 0;
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      if (fastDocuments(text)) fastCount++;
      const [a, b] = [reading(text, true), reading(text, false)];
      try {
        expect(a).toEqual(b);
      } catch {
        differ.push(f);
      }
    }
    expect(differ).toEqual([]);
    expect(fastCount).toBeGreaterThan(files.length / 2);
  });
});

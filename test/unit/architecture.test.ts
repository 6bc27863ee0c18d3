// The dependency direction of src/ (docs/development.md, "Architecture"): no import cycles and
// no arrow the wrong way. The rules are shown failing on small in-memory graphs first.
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LAYOUT_CHOICES } from '../../src/layouts/index.js';
import { findCycles, findViolations, importSpecifiers, readGraph, resolveSpecifier, type ImportGraph } from '../support/imports.js';
import { namedLiterals } from '../support/literals.js';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
// No cycle is tolerated; the list stays so that a deliberate exception has to be written down here.
const KNOWN_CYCLES: string[][] = [];
const graph = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

describe('the import reader', () => {
  it('sees static, type-only, re-export, side-effect and dynamic imports, and only relative ones', () => {
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "export { c } from './c.js';",
      "import './d.js';",
      "const e = await import('./e.js');",
      "import core from '@actions/core';",
    ].join('\n');
    expect(importSpecifiers(text)).toEqual(['./a.js', '../b.js', './c.js', './d.js', './e.js']);
  });

  it('resolves a specifier against the importing module', () => {
    expect(resolveSpecifier('modes/kind.ts', '../pipeline/steps.js')).toBe('pipeline/steps.ts');
    expect(resolveSpecifier('cleanup.ts', './cluster/cleanup.js')).toBe('cluster/cleanup.ts');
  });
});

/**
 * Literals that are a layout's name by coincidence, written down with their reason (as
 * KNOWN_CYCLES is): the file, the literal, and how many times it may appear there.
 */
const FIELDS_NAMED_LIKE_A_LAYOUT: Array<{ file: string; literal: string; times: number; why: string }> = [
  { file: 'report/untrusted.ts', literal: 'repository', times: 1, why: "the results file's `repository` field (GitHub's owner/name), read by key" },
];

describe('the rules fail on bad graphs', () => {
  it('finds a cycle, including one through a dynamic or type-only import', () => {
    const g = graph({
      'cleanup.ts': ['cluster/cleanup.ts'],
      'cluster/cleanup.ts': ['cleanup.ts', 'errors.ts'],
      'errors.ts': [],
    });
    expect(findCycles(g)).toEqual([['cleanup.ts', 'cluster/cleanup.ts']]);
    expect(findCycles(graph({ 'a.ts': ['a.ts'] }))).toEqual([['a.ts']]);
    expect(findCycles(graph({ 'a.ts': ['b.ts'], 'b.ts': [] }))).toEqual([]);
  });

  it('refuses a module below the entry points importing one', () => {
    expect(findViolations(graph({ 'inputs.ts': ['commands/io.ts'], 'commands/io.ts': [] }))).toEqual([
      'nothing below the entry points imports an entry point: inputs.ts -> commands/io.ts',
    ]);
    expect(findViolations(graph({ 'pipeline/plan.ts': ['main.ts'] }))).toHaveLength(1);
  });

  it('refuses a mode importing another mode, and the report importing the verifier', () => {
    expect(findViolations(graph({ 'modes/kind.ts': ['modes/cluster.ts'] }))).toEqual([
      'a mode does not import another mode (shared steps live in pipeline/): modes/kind.ts -> modes/cluster.ts',
    ]);
    expect(findViolations(graph({ 'report/render.ts': ['verify/types.ts'] }))).toEqual([
      'the report does not import the verifier, modes, pipeline or inputs: report/render.ts -> verify/types.ts',
    ]);
  });

  it('refuses detect/ importing layouts/, and anything outside layouts/ importing a layout module', () => {
    expect(findViolations(graph({ 'detect/detect.ts': ['layouts/index.ts'] }))).toEqual([
      'detect/ knows no layout: it does not import layouts/ (the layouts read its diffs): detect/detect.ts -> layouts/index.ts',
    ]);
    expect(findViolations(graph({ 'cluster/baseline.ts': ['layouts/tce.ts'], 'pipeline/plan.ts': ['layouts/plain.ts', 'layouts/index.ts'] }))).toEqual([
      'outside layouts/, only layouts/index.ts is imported (no layout module, no layout internals): cluster/baseline.ts -> layouts/tce.ts',
      'outside layouts/, only layouts/index.ts is imported (no layout module, no layout internals): pipeline/plan.ts -> layouts/plain.ts',
    ]);
    // Inside layouts/ the modules import each other; layouts/ may import detect's diff types.
    expect(findViolations(graph({ 'layouts/index.ts': ['layouts/tce.ts'], 'layouts/tce.ts': ['detect/classify.ts'] }))).toEqual([]);
  });

  it('finds a layout named as a string literal, and nothing else', () => {
    const names = ['tce', 'kctrl', 'repository'];
    const text = [
      "if (ref.layout === 'tce') x();", // 1: a value
      'const l = Layouts.open("kctrl", {});', // 2: double quotes
      'const t = `repository`;', // 3: a template without substitutions
      "// ref.layout === 'tce' in a comment", // 4
      "const words = 'the tce layout';", // 5: a longer string
      "type P = Pick<DevPlan, 'repository' | 'tagImage'>;", // 6: a field's name given to Pick
      "let k: 'tce' | 'other';", // 7: a literal type is a name too
      'const u = `${x}tce`;', // 8: a template with a substitution
    ].join('\n');
    expect(namedLiterals(text, names)).toEqual([
      { line: 1, literal: 'tce' },
      { line: 2, literal: 'kctrl' },
      { line: 3, literal: 'repository' },
      { line: 7, literal: 'tce' },
    ]);
  });

  it('lets an entry point import what is below it', () => {
    expect(findViolations(graph({ 'main.ts': ['modes/kind.ts'], 'modes/kind.ts': ['pipeline/plan.ts', 'pipeline/steps.ts'], 'pipeline/plan.ts': [] }))).toEqual([]);
  });
});

describe('src/', () => {
  const tree = readGraph(SRC);

  it('is read (sanity: the reader found the modules and their arrows)', () => {
    expect(tree.get('main.ts')?.length).toBeGreaterThan(0);
    expect(tree.size).toBeGreaterThan(50);
  });

  it('has no import cycle', () => {
    expect(findCycles(tree)).toEqual(KNOWN_CYCLES);
  });

  it('has no arrow the wrong way', () => {
    expect(findViolations(tree)).toEqual([]);
  });

  it('names no layout outside src/layouts/ (what callers need is data the layout returns; the layout input is parsed there, from LAYOUT_CHOICES)', () => {
    const names = LAYOUT_CHOICES.filter((c) => c !== 'auto');
    const found: string[] = [];
    const excused = new Map(FIELDS_NAMED_LIKE_A_LAYOUT.map((e) => [`${e.file}: '${e.literal}'`, e.times]));
    for (const file of tree.keys()) {
      if (file.startsWith('layouts/')) continue;
      for (const l of namedLiterals(readFileSync(path.join(SRC, file), 'utf8'), names, file)) {
        const key = `${file}: '${l.literal}'`;
        const left = excused.get(key) ?? 0;
        if (left > 0) excused.set(key, left - 1);
        else found.push(`${file}:${l.line}: '${l.literal}'`);
      }
    }
    expect(found).toEqual([]);
    // Every excuse is still needed (a stale one would hide a real name later).
    expect([...excused].filter(([, left]) => left > 0)).toEqual([]);
    // Sanity: the scan reads the layouts' own modules, where the names are.
    const own = readdirSync(path.join(SRC, 'layouts')).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(own.flatMap((f) => namedLiterals(readFileSync(path.join(SRC, 'layouts', f), 'utf8'), names, f)).length).toBeGreaterThan(names.length);
  });
});

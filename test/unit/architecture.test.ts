// The dependency direction of src/ (docs/development.md, "Architecture"): no import cycles and
// no arrow the wrong way. The rules are shown failing on small in-memory graphs first.
import { describe, expect, it } from '@jest/globals';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCycles, findViolations, importSpecifiers, readGraph, resolveSpecifier, type ImportGraph } from '../support/imports.js';

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
});

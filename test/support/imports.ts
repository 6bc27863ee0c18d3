// The import graph of src/ and the rules it must keep (docs/development.md, "Architecture").
// Pure functions over a graph (tested on in-memory graphs), plus one reader that builds the
// graph from the tree. Type-only and dynamic imports count: they are arrows too.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Module (path relative to src/, e.g. 'modes/kind.ts') to the modules it imports. */
export type ImportGraph = Map<string, string[]>;

const IMPORT_RE = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm;

/** The relative specifiers a source text imports (static, type-only, re-exports and dynamic). */
export function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT_RE)) if (m[1].startsWith('.')) out.push(m[1]);
  return out;
}

/** Resolves './x.js' seen in `from` ('a/b.ts') to 'a/x.ts'. */
export function resolveSpecifier(from: string, spec: string): string {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  return joined.replace(/\.js$/, '.ts');
}

/** Reads every non-test .ts module under srcDir into a graph (arrows leaving src/ are dropped). */
export function readGraph(srcDir: string): ImportGraph {
  const graph: ImportGraph = new Map();
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(srcDir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) {
        const deps = importSpecifiers(readFileSync(path.join(srcDir, r), 'utf8'))
          .map((s) => resolveSpecifier(r, s))
          .filter((d) => !d.startsWith('..'));
        graph.set(r, [...new Set(deps)]);
      }
    }
  };
  walk('');
  return graph;
}

/** Every strongly connected component with more than one module (or a self-import): the cycles. */
export function findCycles(graph: ImportGraph): string[][] {
  // Tarjan's algorithm, iterative enough for a few hundred modules.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(comp.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

/** A rule: modules matching `from` may not import modules matching `to` (unless `unless` matches the pair). */
export interface Rule {
  name: string;
  from: (m: string) => boolean;
  to: (m: string) => boolean;
}

/** The entry points: the runner and CLI edges, the commands and the modes. */
export function isEntryPoint(m: string): boolean {
  return ['main.ts', 'post.ts', 'cli.ts', 'index.ts'].includes(m) || m.startsWith('commands/') || m.startsWith('modes/');
}

const under = (...dirs: string[]) => (m: string) => dirs.some((d) => (d.endsWith('.ts') ? m === d : m.startsWith(`${d}/`)));
const not = (f: (m: string) => boolean) => (m: string) => !f(m);

/** A mode (its shared support, the context, selection and problems, is in pipeline/). */
export function isModeRunner(m: string): boolean {
  return m.startsWith('modes/');
}

/** The one-way arrows of docs/development.md, "Architecture". */
export const RULES: Rule[] = [
  { name: 'nothing below the entry points imports an entry point', from: not(isEntryPoint), to: isEntryPoint },
  { name: 'a mode does not import another mode (shared steps live in pipeline/)', from: isModeRunner, to: isModeRunner },
  { name: 'the report does not import the verifier, modes, pipeline or inputs', from: under('report'), to: under('verify', 'modes', 'pipeline', 'inputs.ts') },
  { name: 'tools/ does not import the steps above it', from: under('tools'), to: under('pipeline', 'verify', 'report', 'bootstrap', 'cluster', 'providers') },
  { name: 'versions/ is pure: it imports only itself and errors', from: under('versions'), to: not(under('versions', 'errors.ts')) },
  { name: 'detect/ knows no layout: it does not import layouts/ (the layouts read its diffs)', from: under('detect'), to: under('layouts') },
  { name: 'outside layouts/, only layouts/index.ts is imported (no layout module, no layout internals)', from: not(under('layouts')), to: isLayoutInternal },
];

/** A module of layouts/ other than its one seam, index.ts: a layout module (tce.ts, kctrl.ts, ...) or what they share. */
export function isLayoutInternal(m: string): boolean {
  return m.startsWith('layouts/') && m !== 'layouts/index.ts';
}

/** Every arrow that breaks a rule, as 'rule: from -> to'. */
export function findViolations(graph: ImportGraph, rules: Rule[] = RULES): string[] {
  const out: string[] = [];
  for (const [from, deps] of graph) {
    for (const to of deps) {
      for (const r of rules) if (r.from(from) && r.to(to)) out.push(`${r.name}: ${from} -> ${to}`);
    }
  }
  return out.sort();
}

/**
 * The fast path for reading YAML values (pure): js-yaml parses a big Package several times faster
 * than the yaml library (issue 35: the library's parse was most of `plan --all` on a repository
 * bundle). It is used only where it provably reads what the yaml library reads:
 *
 * - plain scalars are resolved by the yaml library's own core-schema tags (the same tests, the same
 *   resolve functions), so `0o17`, `1e3`, `.inf`, `~`, `True` become what they became before;
 * - a text with anchors, aliases or tags (where the two libraries differ: alias limits, explicit
 *   tags) is left to the yaml library, and so is every text js-yaml refuses (duplicate keys, syntax
 *   errors): the library then gives today's values or today's error, with its line;
 * - the line of every path comes from js-yaml's node events (where each node starts), checked
 *   against the value it built; where they do not agree the caller asks the yaml library.
 *
 * src/packages/fast-yaml.test.ts compares both libraries on every YAML file of the repository's
 * test data and on a table of scalars.
 */
import jsyaml from 'js-yaml';
import { Schema } from 'yaml';

/** One document read on the fast path. */
export interface FastDoc {
  value: unknown;
  /**
   * The 1-based line of every path (as model.ts names them: `spec.template.spec.fetch.0`), or
   * undefined when the events do not agree with the value. Computed on each call: the caller keeps it.
   */
  lines(): Record<string, number> | undefined;
  /** The document's own line (its content's first line). */
  line: number;
}

interface Frame {
  pos: number;
  kind: string | null;
  result: unknown;
  children: Frame[];
}

type ScalarTag = { tag: string; test?: RegExp; resolve: (s: string, onError: (m: string) => void, o: object) => unknown };

let schema: jsyaml.Schema | undefined;

/** js-yaml's failsafe schema with the yaml library's core scalar tags (null, bool, int, float). */
function coreSchema(): jsyaml.Schema {
  if (schema) return schema;
  const tags = (new Schema({}).tags as ScalarTag[]).filter((t) => t.test instanceof RegExp);
  const options = { intAsBigInt: false };
  const types = tags.map(
    (t, i) =>
      // One js-yaml type per library tag, each its own name: the explicit (`!!int`) form never
      // reaches them (tagged texts go to the library), only plain scalars' implicit resolution.
      new jsyaml.Type(`tag:devpkg.dev,2026:core-${i}`, {
        kind: 'scalar',
        resolve: (data: unknown) => typeof data === 'string' && t.test!.test(data),
        construct: (data: string) => {
          const v = t.resolve(data, () => undefined, options);
          return typeof v === 'object' && v !== null && 'value' in v ? (v as { value: unknown }).value : v;
        },
      }),
  );
  schema = jsyaml.FAILSAFE_SCHEMA.extend({ implicit: types });
  return schema;
}

/** Anchors (&a), aliases (*a) and tags (!x, !!int) at a node's start: left to the yaml library. */
const NODE_PROPERTY = /(?:^|[\s[\]{},])(?:[&*][\w-]|![\w!<-])/;
/** Empty (a `key:`) is fine; an empty key (`: x`, `? `) is read differently: left to the library. */
const EXPLICIT_OR_EMPTY_KEY = /^[ \t-]*[?:](?:[ \t]|$)/m;
/** A directive (`%YAML 1.1` changes the library's schema): left to the library. */
const DIRECTIVE = /^%/m;

/**
 * The documents of `text` and their lines, or undefined when the yaml library must read it (the
 * text uses anchors, aliases, tags or explicit keys, or js-yaml refuses it). Documents that hold
 * nothing (an empty text, a lone `---`) are left out.
 */
export function fastDocuments(text: string): FastDoc[] | undefined {
  if (NODE_PROPERTY.test(text) || EXPLICIT_OR_EMPTY_KEY.test(text) || DIRECTIVE.test(text)) return undefined;
  const roots: Frame[] = [];
  const stack: Frame[] = [];
  let multiline = false;
  let values: unknown[];
  try {
    values = jsyaml.loadAll(text, null, {
      schema: coreSchema(),
      listener(event, state) {
        if (event === 'open') {
          stack.push({ pos: state.position, kind: null, result: undefined, children: [] });
          return;
        }
        const f = stack.pop()!;
        f.kind = state.kind;
        f.result = state.result;
        // A quoted or plain scalar, or a flow collection, over several lines: js-yaml takes
        // continuation lines the library refuses as under-indented (controller-gen's descriptions).
        if (f.kind !== null && !spansLinesSafely(text, f.pos, state.position)) multiline = true;
        // A block mapping tries one more key where it ends (before a `---`, say): no node.
        if (f.kind === 'mapping' && f.children.length % 2 === 1 && f.children[f.children.length - 1]!.kind === null) f.children.pop();
        (stack.length ? stack[stack.length - 1]!.children : roots).push(f);
      },
    });
  } catch {
    return undefined;
  }
  if (multiline) return undefined;
  // A document that holds nothing may have no node of its own (a `---` at the end): pair the
  // documents that hold something with their root nodes, the very values js-yaml built.
  const held = values.filter((v) => v !== null && v !== undefined);
  const tops = roots.filter((r) => r.result !== null && r.result !== undefined);
  if (held.length !== tops.length || held.some((v, i) => typeof v === 'object' && tops[i]!.result !== v)) return undefined;
  // Keys that are collections (`[a, b]: 1`) are stringified differently by the two libraries.
  if (!tops.every(scalarKeys)) return undefined;
  const index = new LineIndex(text);
  return held.map((value, i) => {
    const root = tops[i]!;
    return { value, line: index.lineAt(contentStart(text, root.pos)), lines: () => collect(text, index, root, value) };
  });
}

/**
 * Whether the node from `open` (where its search began) to `end` is on one line, or is a block
 * collection or a block scalar (`|`, `>`), whose lines both libraries read alike.
 */
function spansLinesSafely(text: string, open: number, end: number): boolean {
  const start = contentStart(text, open);
  if (start >= end) return true;
  const nl = text.indexOf('\n', start);
  if (nl < 0 || nl >= end) return true;
  const c = text[start];
  if (c === '|' || c === '>') return true;
  if (c === '[' || c === '{' || c === '"' || c === "'") return false;
  // A block collection starts with a key or `- `; a plain scalar's first line has no `: `/`- ` start.
  return /^(?:- |-$|[^\n]*?:(?: |$))/.test(text.slice(start, nl));
}

/** Whether every mapping under `f` has scalar keys, each with its value (no dangling event). */
function scalarKeys(f: Frame): boolean {
  if (f.kind === 'mapping') {
    if (f.children.length % 2 !== 0) return false;
    for (let i = 0; i < f.children.length; i += 2) {
      if (f.children[i]!.kind !== 'scalar' || !scalarKeys(f.children[i + 1]!)) return false;
    }
    return true;
  }
  return f.kind !== 'sequence' || f.children.every(scalarKeys);
}

/** Where the node that starts its search at `pos` really starts: past blanks, line breaks and comments. */
function contentStart(text: string, pos: number): number {
  let i = pos;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else if (c === 0x23 /* # */) {
      const nl = text.indexOf('\n', i);
      if (nl < 0) return text.length;
      i = nl + 1;
    } else return i;
  }
}

class LineIndex {
  private starts?: number[];
  constructor(private readonly text: string) {}
  /** 1-based line of offset `pos`. */
  lineAt(pos: number): number {
    if (!this.starts) {
      const s = [0];
      for (let i = this.text.indexOf('\n'); i >= 0; i = this.text.indexOf('\n', i + 1)) s.push(i + 1);
      this.starts = s;
    }
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The lines of every path under `root`, as model.ts's collectLines names them: a map entry's
 * line is its key's when the value is a collection, the value's otherwise; a list item's its own.
 * Undefined when the events do not match the value built (the caller asks the yaml library).
 */
function collect(text: string, index: LineIndex, root: Frame, value: unknown): Record<string, number> | undefined {
  const lines: Record<string, number> = {};
  const at = (f: Frame) => index.lineAt(contentStart(text, f.pos));
  const walk = (f: Frame, v: unknown, path: string): boolean => {
    const child = (p: string | number) => (path === '' ? String(p) : `${path}.${p}`);
    if (f.kind === 'mapping') {
      if (!isRecord(v) || f.children.length % 2 !== 0 || f.children.length / 2 !== Object.keys(v).length) return false;
      for (let i = 0; i < f.children.length; i += 2) {
        const k = f.children[i]!;
        const val = f.children[i + 1]!;
        if (k.kind !== 'scalar') return false;
        const key = String(k.result);
        if (!Object.prototype.hasOwnProperty.call(v, key)) return false;
        const keyLine = at(k);
        if (val.kind === 'mapping' || val.kind === 'sequence') {
          if (!walk(val, v[key], child(key))) return false;
          lines[child(key)] = keyLine;
        } else {
          lines[child(key)] = val.kind === null ? keyLine : at(val);
        }
      }
      return true;
    }
    if (f.kind === 'sequence') {
      if (!Array.isArray(v) || f.children.length !== v.length) return false;
      return f.children.every((item, i) => {
        lines[child(i)] = at(item);
        return item.kind === 'mapping' || item.kind === 'sequence' ? walk(item, v[i], child(i)) : true;
      });
    }
    return true;
  };
  lines[''] = at(root);
  return walk(root, value, '') ? lines : undefined;
}

// Markdown helpers for the documentation tests: GitHub's heading slugs, the relative links of a
// file, and a checker that says which of them do not resolve. Deliberately small: ATX headings,
// inline links and images, reference definitions and href/src attributes; code is skipped.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface Heading {
  level: number;
  text: string;
  line: number;
  /** inside a blockquote (e.g. a quoted example comment) */
  quoted: boolean;
}

export interface Link {
  line: number;
  target: string;
  image: boolean;
}

/** Lines of a Markdown file with fenced code blocks blanked out (line numbers are kept). */
function proseLines(markdown: string): Array<{ text: string; quoted: boolean }> {
  let fence: string | undefined;
  return markdown.split('\n').map((raw) => {
    const quoted = /^\s*>/.test(raw);
    const text = raw.replace(/^(\s*>)+ ?/, '');
    const m = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence === undefined && m) {
      fence = m[1];
      return { text: '', quoted };
    }
    if (fence !== undefined) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && text.trim() === m[1]) fence = undefined;
      return { text: '', quoted };
    }
    return { text, quoted };
  });
}

/** Inline code spans removed (`a [b](c)` is not a link). */
function withoutCode(line: string): string {
  return line.replace(/(`+)[\s\S]*?\1/g, (s) => ' '.repeat(s.length));
}

/**
 * The prose of a Markdown text: fenced blocks blanked and inline code removed, where GitHub
 * finds mentions, autolinks and HTML (it renders code as text).
 */
export function proseOf(markdown: string): string {
  return proseLines(markdown)
    .map((l) => withoutCode(l.text))
    .join('\n');
}

/** The text GitHub renders for a heading's inline Markdown (links and images by their text). */
function headingText(inline: string): string {
  return inline
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`/g, '');
}

/** GitHub's anchor for a heading text (github-slugger, without the de-duplication). */
export function githubSlug(text: string): string {
  return headingText(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

export function headings(markdown: string): Heading[] {
  const out: Heading[] = [];
  proseLines(markdown).forEach(({ text, quoted }, i) => {
    const m = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(text);
    if (m) out.push({ level: m[1].length, text: (m[2] ?? '').trim(), line: i + 1, quoted });
  });
  return out;
}

/** Every anchor a file offers: heading slugs, de-duplicated as GitHub does (-1, -2, ...), and explicit ids. */
export function anchors(markdown: string): string[] {
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const h of headings(markdown)) {
    const base = githubSlug(h.text);
    let slug = base;
    while (seen.has(slug)) {
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      slug = `${base}-${n}`;
    }
    seen.set(slug, 0);
    out.push(slug);
  }
  for (const m of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) out.push(m[1]);
  return out;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/** Relative links and images of a file (external URLs left out), with their line numbers. */
export function relativeLinks(markdown: string): Link[] {
  const out: Link[] = [];
  proseLines(markdown).forEach(({ text }, i) => {
    const line = withoutCode(text);
    const add = (target: string, image: boolean) => {
      const t = target.trim().replace(/^<(.*)>$/, '$1');
      if (t && !SCHEME.test(t)) out.push({ line: i + 1, target: t, image });
    };
    for (const m of line.matchAll(/(!?)\[(?:[^\][]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g)) {
      add(m[2], m[1] === '!');
    }
    const def = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (def) add(def[1], false);
    for (const m of line.matchAll(/<(a|img)\b[^>]*?\s(?:href|src)="([^"]+)"/g)) add(m[2], m[1] === 'img');
  });
  return out;
}

/**
 * The relative links of `files` (paths below `root`) that do not resolve: a missing file or
 * folder, or an `#anchor` that no heading of the target Markdown file has. One message each,
 * `file:line: target (why)`.
 */
export function brokenLinks(root: string, files: string[]): string[] {
  const anchorCache = new Map<string, string[]>();
  const anchorsOf = (abs: string) => {
    let a = anchorCache.get(abs);
    if (!a) anchorCache.set(abs, (a = anchors(readFileSync(abs, 'utf8'))));
    return a;
  };
  const problems: string[] = [];
  for (const file of files) {
    const abs = resolve(root, file);
    for (const link of relativeLinks(readFileSync(abs, 'utf8'))) {
      const hash = link.target.indexOf('#');
      const pathPart = decodeURIComponent(hash < 0 ? link.target : link.target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(link.target.slice(hash + 1));
      const target = pathPart === '' ? abs : pathPart.startsWith('/') ? join(root, pathPart) : resolve(dirname(abs), pathPart);
      const where = `${file}:${link.line}: ${link.target}`;
      if (relative(root, target).startsWith('..')) {
        problems.push(`${where} (points outside the repository)`);
      } else if (!existsSync(target)) {
        problems.push(`${where} (no such file: ${relative(root, target)})`);
      } else if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md') && !anchorsOf(target).includes(anchor)) {
        problems.push(`${where} (no heading with anchor #${anchor} in ${relative(root, target)})`);
      }
    }
  }
  return problems;
}

/** The cells of a table row as GitHub splits them (GFM): outer pipes dropped, `\|` kept in its cell. */
export function tableCells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

const TABLE_DELIMITER = /^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/**
 * The table rows (outside code, inside block quotes too) whose cell count is not their header's:
 * "file:line: N cells, the header has M". GFM splits a row on every unescaped `|` before it reads
 * code spans, so a bare `|` inside backticks counts as a split, as it does on GitHub.
 */
export function misshapenTableRows(file: string, markdown: string): string[] {
  const lines = proseLines(markdown).map((l) => l.text);
  const bad: string[] = [];
  const isRow = (l: string | undefined) => l !== undefined && l.trimStart().startsWith('|');
  for (let i = 0; i < lines.length; i++) {
    if (!isRow(lines[i]) || !TABLE_DELIMITER.test(lines[i + 1] ?? '')) continue;
    const width = tableCells(lines[i]!).length;
    const delimiter = tableCells(lines[i + 1]!).length;
    if (delimiter !== width) bad.push(`${file}:${i + 2}: the delimiter row has ${delimiter} cells, the header ${width}`);
    let j = i + 2;
    for (; isRow(lines[j]); j++) {
      const n = tableCells(lines[j]!).length;
      if (n !== width) bad.push(`${file}:${j + 1}: ${n} cells, the header has ${width}`);
    }
    i = j - 1;
  }
  return bad;
}

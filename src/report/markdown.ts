/**
 * Escaping for the three languages a report mixes: GitHub-flavoured markdown, the bits of
 * HTML it allows (<details>, <summary>), and Mermaid. Everything that came from a cluster,
 * a package or another job's artifact passes through one of these before it is rendered,
 * because a report posted by a privileged workflow must not let that text add links,
 * mentions or markup of its own.
 */

/** Text inside HTML elements and attributes. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Plain text in a markdown paragraph, list item or table cell: one line, markdown
 * punctuation escaped, `@name` unable to mention anyone, and no bare address GitHub would
 * turn into a link (`https://...`, `www....`: a backslash does not stop those, nor mentions,
 * which GitHub finds in the rendered text; a zero-width space after `@`, `:` or `www` does).
 */
export function text(s: string): string {
  return s
    .replace(/\r?\n/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|~#!]/g, (c) => `\\${c}`)
    .replace(/@/g, '@\u200b')
    .replace(/:\/\//g, ':\u200b//')
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\u200b.`);
}

/**
 * Plain text inside raw HTML (a `<summary>`): one line, HTML-escaped, markdown punctuation as
 * character references (a backslash would show there, and a reference is literal text wherever
 * GitHub does read markdown), mentions and bare addresses broken as `text` breaks them.
 */
export function htmlText(s: string): string {
  return escapeHtml(s.replace(/\r?\n/g, ' '))
    .replace(/[\\`*_[\]|~#!]/g, (c) => `&#${c.charCodeAt(0)};`)
    .replace(/@/g, '@\u200b')
    .replace(/:\/\//g, ':\u200b//')
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\u200b.`);
}

/** An inline code span that holds any text (a longer fence when the text has backticks). */
export function code(s: string): string {
  const flat = s.replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** A table cell: a pipe ends a cell even inside a code span, so escape it everywhere. */
export function cell(markdown: string): string {
  return markdown.replace(/\|/g, '\\|');
}

/** A fenced block that its content cannot close early. */
export function fenced(content: string, lang = ''): string {
  const longest = Math.max(0, ...(content.match(/`{3,}/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const body = content.endsWith('\n') ? content : `${content}\n`;
  return `${fence}${lang}\n${body}${fence}`;
}

/** A collapsible section; the body is markdown (blank lines keep GitHub rendering it as such). */
export function details(summaryHtml: string, body: string, open = false): string {
  return `<details${open ? ' open' : ''}><summary>${summaryHtml}</summary>\n\n${body}\n\n</details>`;
}

export function link(label: string, url: string): string {
  return `[${text(label)}](${url.replace(/[()\s]/g, encodeURIComponent)})`;
}

const MERMAID_KEYWORD =
  /^(title|section|dateformat|axisformat|tickinterval|excludes|includes|todaymarker|weekday|weekend|click|acctitle|accdescr|inclusiveenddates|topaxis|displaymode|gantt)\b/i;

/**
 * A label inside a Mermaid gantt chart. ':' separates a task's name from its data, '#'
 * starts an entity code, ';' ends a statement and '%%' a comment, so those become
 * look-alike characters; a label that starts with a gantt keyword gets a prefix so it
 * cannot be read as a directive.
 */
export function mermaidLabel(s: string): string {
  const out = s
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/:/g, '\uA789')
    .replace(/#/g, '\uFF03')
    .replace(/;/g, '\uFF1B')
    .replace(/%/g, '\uFF05')
    .replace(/[`"<>{}[\]\\]/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
  if (out === '') return '-';
  return MERMAID_KEYWORD.test(out) ? `\u25B8 ${out}` : out;
}

/** Cuts text to at most `max` characters, keeping the head or the tail, and says so. */
export function cut(s: string, max: number, keep: 'head' | 'tail'): string {
  if (s.length <= max) return s;
  const note = (n: number): string => `… (${n} characters cut; the full text is in the artifact)`;
  const room = Math.max(0, max - note(s.length).length - 1);
  const dropped = s.length - room;
  return keep === 'head' ? `${s.slice(0, room)}\n${note(dropped)}` : `${note(dropped)}\n${s.slice(s.length - room)}`;
}

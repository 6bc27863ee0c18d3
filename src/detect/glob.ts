/**
 * A small glob matcher for repository paths ('/'-separated), the same on Node 20 and 24
 * (path.matchesGlob is experimental in Node 20 and warns when used).
 *
 * - `*` any run of characters except '/'; `?` one character except '/';
 * - `**` as a whole path segment: zero or more directories (`**\/*.md`, `docs/**`);
 * - `[abc]`, `[a-z]`, `[!a]` character classes; `{a,b}` alternatives;
 * - a pattern without '/' matches the file name at any depth (as in .gitignore): `*.md`;
 * - a pattern ending in '/' matches everything below that directory.
 */
export function globToRegExp(glob: string): RegExp {
  let g = glob.trim().replace(/^\.\//, '');
  if (g.endsWith('/')) g += '**';
  if (!g.includes('/')) g = `**/${g}`;
  return new RegExp(`^${translate(g)}$`);
}

function escape(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

function translate(g: string): string {
  let re = '';
  let i = 0;
  while (i < g.length) {
    const c = g[i];
    if (c === '*') {
      if (g[i + 1] === '*') {
        const segStart = i === 0 || g[i - 1] === '/';
        const segEnd = i + 2 === g.length || g[i + 2] === '/';
        if (segStart && segEnd) {
          if (i + 2 === g.length) {
            re += '.*';
            i += 2;
          } else {
            re += '(?:[^/]*/)*';
            i += 3;
          }
          continue;
        }
        i += 2;
        re += '[^/]*';
        continue;
      }
      re += '[^/]*';
      i++;
    } else if (c === '?') {
      re += '[^/]';
      i++;
    } else if (c === '[') {
      const close = g.indexOf(']', i + 2);
      if (close === -1) {
        re += '\\[';
        i++;
        continue;
      }
      let body = g.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      body = body.replace(/[\\\]^]/g, (m) => `\\${m}`);
      re += negate ? `[^/${body}]` : `[${body}]`;
      i = close + 1;
    } else if (c === '{') {
      const close = g.indexOf('}', i + 1);
      if (close === -1) {
        re += '\\{';
        i++;
        continue;
      }
      const alts = g.slice(i + 1, close).split(',').map(translate);
      re += `(?:${alts.join('|')})`;
      i = close + 1;
    } else {
      re += escape(c);
      i++;
    }
  }
  return re;
}

/** A predicate that is true when a repository path matches any of the globs. */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const suffixes: string[] = [];
  const res: RegExp[] = [];
  for (const g of globs.map((x) => x.trim()).filter((x) => x !== '')) {
    // `*.md` and `**/*.md` (the default) only ask how the name ends: no regex per file.
    const m = /^(?:\*\*\/)?\*(\.[A-Za-z0-9_-]+)$/.exec(g);
    if (m) suffixes.push(m[1]);
    else res.push(globToRegExp(g));
  }
  if (suffixes.length === 0 && res.length === 0) return () => false;
  return (path) => suffixes.some((s) => path.endsWith(s)) || res.some((re) => re.test(path));
}

export function matchesGlob(path: string, glob: string): boolean {
  return globToRegExp(glob).test(path);
}

/**
 * The ignore globs, matched against repository paths ('/'-separated) by picomatch (its POSIX
 * entry: a backslash escapes, it never separates), with two rules of .gitignore on top:
 *
 * - a pattern without '/' matches the file name at any depth: `*.md`;
 * - a pattern ending in '/' matches everything below that directory: `docs/`.
 *
 * Otherwise picomatch's syntax: `*`, `?`, `**` as a whole segment, `[a-z]`, `[!a]`, nested
 * `{a,b/{c,d}}`, `\*` for a literal star. `*` matches dot files too, and a leading `!` is literal
 * (an ignore list has no "but not").
 */
import picomatch from 'picomatch/posix.js';

const OPTIONS: picomatch.PicomatchOptions = { dot: true, posix: true, nonegate: true };

/** The pattern picomatch is given: trimmed, `./` dropped, and the two .gitignore rules applied. */
function normalize(glob: string): string {
  let g = glob.trim().replace(/^\.\//, '');
  if (g.endsWith('/')) g += '**';
  if (!g.includes('/')) g = `**/${g}`;
  return g;
}

export function globToRegExp(glob: string): RegExp {
  return picomatch.makeRe(normalize(glob), OPTIONS);
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

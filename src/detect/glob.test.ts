import { globMatcher, matchesGlob } from './glob.js';

describe('matchesGlob', () => {
  test.each([
    ['**/*.md', 'README.md', true],
    ['**/*.md', 'addons/packages/antrea/1.2.3/README.md', true],
    ['**/*.md', 'addons/packages/antrea/1.2.3/package.yaml', false],
    ['**/*.md', 'docs/guide.md.txt', false],
    ['*.md', 'a/b/c/NOTES.md', true], // no '/': matches the file name at any depth
    ['*.md', 'a/b.md/c.yaml', false],
    ['docs/*', 'docs/a.yaml', true],
    ['docs/*', 'docs/a/b.yaml', false],
    ['docs/**', 'docs/a/b.yaml', true],
    ['docs/', 'docs/a/b.yaml', true],
    ['docs/**', 'other/docs/a.yaml', false],
    ['a/**/b.txt', 'a/b.txt', true],
    ['a/**/b.txt', 'a/x/y/b.txt', true],
    ['a/**/b.txt', 'xa/b.txt', false],
    ['**/test/**', 'addons/packages/x/test/e2e/run.sh', true],
    ['file?.yaml', 'dir/file1.yaml', true],
    ['file?.yaml', 'dir/file10.yaml', false],
    ['file[0-9].yaml', 'file7.yaml', true],
    ['file[!0-9].yaml', 'file7.yaml', false],
    ['file[!0-9].yaml', 'fileX.yaml', true],
    ['*.{md,txt}', 'x/y.txt', true],
    ['*.{md,txt}', 'x/y.yaml', false],
    ['**/1.0.0+vmware.1/*', 'p/x/1.0.0+vmware.1/package.yaml', true], // '+' and '.' are literal
    ['**/1.0.0+vmware.1/*', 'p/x/1.0.0vmware11/package.yaml', false],
    ['**/my file.yaml', 'a/my file.yaml', true],
    ['./docs/*.md', 'docs/x.md', true],
    // Parentheses are picomatch's groups (as in micromatch and fast-glob); `\(` is a literal one.
    ['a\\(b\\)/*', 'a(b)/c', true],
    ['a\\(b\\)/*', 'ab/c', false],
    // Nested braces and escapes, which the hand-written matcher got wrong.
    ['a/{b,c/{d,e}}/f', 'a/c/e/f', true],
    ['a/{b,c/{d,e}}/f', 'a/c/d/f', true],
    ['a/{b,c/{d,e}}/f', 'a/b/f', true],
    ['a/{b,c/{d,e}}/f', 'a/c/f', false],
    ['a/{b,c/{d,e}}/f', 'a/c/{d,e}/f', false],
    ['\\*.md', '*.md', true],
    ['\\*.md', 'docs/*.md', true],
    ['\\*.md', 'README.md', false],
    ['docs/\\?.md', 'docs/?.md', true],
    ['docs/\\?.md', 'docs/a.md', false],
    ['*.md', 'docs/.hidden.md', true], // dot files too
    ['!docs/*', '!docs/a', true], // a leading ! is literal, not "everything but"
    ['!docs/*', 'other/a', false],
  ])('%s ~ %s -> %s', (glob, path, expected) => {
    expect(matchesGlob(path, glob)).toBe(expected);
  });
});

describe('globMatcher', () => {
  test('any of several globs; blank globs ignored; none matches nothing', () => {
    const m = globMatcher(['**/*.md', ' ', 'hack/**']);
    expect(m('x/README.md')).toBe(true);
    expect(m('hack/a.sh')).toBe(true);
    expect(m('x/package.yaml')).toBe(false);
    expect(globMatcher([])('README.md')).toBe(false);
  });
});

describe('globMatcher fast path (*.ext) agrees with the regex', () => {
  const paths = ['README.md', 'a/b/c.md', 'a/.md', 'a.md/b', 'a/b.mdx', 'x.MD', 'dir/file.md.txt', 'md'];
  test.each(['*.md', '**/*.md'])('%s', (glob) => {
    const m = globMatcher([glob]);
    for (const p of paths) expect([p, m(p)]).toEqual([p, matchesGlob(p, glob)]);
  });
});

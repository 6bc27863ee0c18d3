// Every relative link and image in README.md and docs/*.md resolves (file, folder, #anchor),
// and every documentation file has one `#` heading and no skipped levels.
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anchors, brokenLinks, githubSlug, headings, relativeLinks } from '../support/markdown.js';

const DOCS = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

describe('the Markdown helpers', () => {
  test.each([
    ['Inputs and outputs', 'inputs-and-outputs'],
    ['Which version does kapp-controller pick? (`devpkg select`)', 'which-version-does-kapp-controller-pick-devpkg-select'],
    ['What "won" means', 'what-won-means'],
    ['`push-command`: using the repository\'s own target', 'push-command-using-the-repositorys-own-target'],
    ['Phases 2 and 3 (addons manager, TKR controller)', 'phases-2-and-3-addons-manager-tkr-controller'],
    ['kapp-controller v0.51.0 / 1.x', 'kapp-controller-v0510--1x'],
    ['snake_case stays', 'snake_case-stays'],
    ['✅ won', '-won'],
    ['Ünïcode Ok', 'ünïcode-ok'],
    ['[Linked](other.md) *text*', 'linked-text'],
  ])('slug of %j is %j', (text, slug) => {
    expect(githubSlug(text)).toBe(slug);
  });

  test('repeated headings get -1, -2; code blocks hold no headings', () => {
    const md = '# A\n## A\n```sh\n# not a heading\n```\n### A\n## B ##\n<a name="x"></a>\n';
    expect(anchors(md)).toEqual(['a', 'a-1', 'a-2', 'b', 'x']);
    expect(headings(md).map((h) => [h.level, h.text, h.line])).toEqual([
      [1, 'A', 1],
      [2, 'A', 2],
      [3, 'A', 6],
      [2, 'B', 7],
    ]);
  });

  test('relative links and images, not external ones nor code', () => {
    const md = [
      'see [a](docs/a.md#x) and ![img](img/p.png "title")', // 1
      '[ext](https://example.com) [mail](mailto:x@y) `[code](no.md)`', // 2
      '```', // 3
      '[fenced](no.md)', // 4
      '```', // 5
      '[ref]: ./ref.md', // 6
      '> quoted [q](#here) [[nested] text](<sp ace.md>)', // 7
      '<img src="i.svg"> <a href="#top">top</a>', // 8
    ].join('\n');
    expect(relativeLinks(md)).toEqual([
      { line: 1, target: 'docs/a.md#x', image: false },
      { line: 1, target: 'img/p.png', image: true },
      { line: 6, target: './ref.md', image: false },
      { line: 7, target: '#here', image: false },
      { line: 7, target: 'sp ace.md', image: false },
      { line: 8, target: 'i.svg', image: true },
      { line: 8, target: '#top', image: false },
    ]);
  });

  test('brokenLinks names the file, the line and the target', () => {
    const root = mkdtempSync(join(tmpdir(), 'devpkg-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs/a.md'), '# A\n## Two words\n## Two words\n');
      writeFileSync(
        join(root, 'README.md'),
        [
          '# R',
          '[ok](docs/a.md#two-words-1) [ok](docs) [ok](#r) [ok](docs/a.md)',
          '[missing](docs/b.md) ![gone](img.png)',
          '[bad anchor](docs/a.md#two-words-2) [self](#nope)',
          '[out](../elsewhere.md)',
        ].join('\n'),
      );
      expect(brokenLinks(root, ['README.md', 'docs/a.md'])).toEqual([
        'README.md:3: docs/b.md (no such file: docs/b.md)',
        'README.md:3: img.png (no such file: img.png)',
        'README.md:4: docs/a.md#two-words-2 (no heading with anchor #two-words-2 in docs/a.md)',
        'README.md:4: #nope (no heading with anchor #nope in README.md)',
        'README.md:5: ../elsewhere.md (points outside the repository)',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the documentation', () => {
  test('is README.md plus the docs folder', () => {
    expect(DOCS).toEqual(expect.arrayContaining(['README.md', 'docs/how-it-works.md', 'docs/cli.md', 'docs/workflows.md', 'docs/development.md']));
  });

  test('every relative link and image resolves', () => {
    expect(brokenLinks(process.cwd(), DOCS)).toEqual([]);
  });

  test.each(DOCS)('%s has one # heading, first, and no skipped levels', (file) => {
    const hs = headings(readFileSync(file, 'utf8')).filter((h) => !h.quoted);
    const problems: string[] = [];
    if (hs[0]?.level !== 1) problems.push(`${file}: the first heading is not a # heading`);
    hs.slice(1).forEach((h, i) => {
      if (h.level === 1) problems.push(`${file}:${h.line}: a second # heading`);
      if (h.level > hs[i].level + 1) problems.push(`${file}:${h.line}: ${'#'.repeat(h.level)} after ${'#'.repeat(hs[i].level)}`);
      if (!h.text) problems.push(`${file}:${h.line}: an empty heading`);
    });
    expect(problems).toEqual([]);
  });
});

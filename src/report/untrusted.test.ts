import { artifactRelativePath, cleanText, cutText, readResultsDocument, UNTRUSTED_LIMITS, type ReadDocument } from './untrusted.js';

const won = { name: 'antrea', version: '1.5.3', verdict: 'won', devVersion: '1.5.4-dev.1', mode: 'kind', reason: 'won', timeline: [] };
const doc = (...results: unknown[]) => ({ schema: 'devpkg.results/v1', repository: 'example/tce', results });
const read = (raw: unknown): ReadDocument => {
  const r = readResultsDocument(raw);
  if ('refused' in r) throw new Error(`refused: ${r.refused}`);
  return r;
};

describe('cleanText: nothing a terminal or the runner acts on', () => {
  test.each([
    ['ANSI colour', '\u001b[31mred\u001b[0m text', 'red text'],
    ['ANSI cursor movement and OSC title', 'a\u001b[2K\u001b[1Ab\u001b]0;owned\u0007c', 'abc'],
    ['an 8-bit CSI', 'a\u009b31mb', 'ab'],
    ['NUL and other C0', 'a\u0000b\u0007c\u0008d', 'abcd'],
    ['carriage return overwriting a line', 'ok\rFAILED', 'ok FAILED'],
    ['bidi override (Trojan source)', 'abc\u202edcba\u202c', 'abcdcba'],
    ['::set-output at the start', '::set-output name=result::success', '\u200b::set-output name=result::success'],
    ['::add-mask after spaces', '   ::add-mask::x', '   \u200b::add-mask::x'],
    // One line: what followed a line end is no longer at a line's start.
    ['::stop-commands after a newline', 'x\n::stop-commands::tok', 'x ::stop-commands::tok'],
    ['::error on a later line after \\r', 'x\r::error::forged', 'x ::error::forged'],
    ['a v1 command anywhere', 'see ##[set-output name=a;]b', 'see ##\u200b[set-output name=a;]b'],
    ['a lone surrogate', 'a\uD800b', 'a\uFFFDb'],
    ['`::` inside a line is text', 'a::b', 'a::b'],
  ])('%s (one line)', (_what, input, want) => {
    expect(cleanText(input)).toBe(want);
  });

  test.each([
    ['keeps newlines and tabs', 'a\n\tb', 'a\n\tb'],
    ['makes \\r\\n and \\r newlines', 'a\r\nb\rc', 'a\nb\nc'],
    ['breaks a command on any line', 'first\n  ::set-output name=x::y\n::add-mask::z', 'first\n  \u200b::set-output name=x::y\n\u200b::add-mask::z'],
  ])('%s (multi-line)', (_what, input, want) => {
    expect(cleanText(input, true)).toBe(want);
  });
});

test.each([
  ['fits', 'abc', 10, 'abc', 0],
  ['cut with a note that counts', 'x'.repeat(200), 100, `${'x'.repeat(49)} … (151 characters cut by devpkg: the limit is 100)`, 151],
])('cutText: %s', (_what, s, max, want, cut) => {
  const r = cutText(s, max);
  expect(r).toEqual({ text: want, cut });
  expect(r.text.length).toBeLessThanOrEqual(max);
});

test('cutText never splits a surrogate pair', () => {
  const r = cutText('😀'.repeat(100), 61);
  expect(r.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
});

describe('readResultsDocument: the schema', () => {
  test.each<[string, unknown, RegExp]>([
    ['not an object', [], /not a JSON object/],
    ['another schema', { ...doc(won), schema: 'devpkg.results/v0' }, /schema is "devpkg.results\/v0", expected devpkg.results\/v1/],
    ['results not a list', { ...doc(), results: {} }, /results: expected an array/],
    ['an unknown verdict', doc({ ...won, verdict: 'passed' }), /results\[0\]\.verdict: "passed" is not one of won, /],
    ['an unknown mode', doc({ ...won, mode: 'ci' }), /results\[0\]\.mode: "ci" is not one of plan, /],
    ['a name of the wrong type', doc({ ...won, name: ['antrea'] }), /results\[0\]\.name: an array, expected a string/],
    ['a missing version', doc({ ...won, version: undefined }), /results\[0\]\.version: missing/],
    ['a won result without its dev version', doc({ ...won, devVersion: undefined }), /results\[0\]\.devVersion: missing/],
    ['a timeline that is not a list', doc({ ...won, timeline: 'nope' }), /results\[0\]\.timeline: expected an array/],
    ['a phase name that is a number', doc({ ...won, phases: [{ name: 42 }] }), /results\[0\]\.phases\[0\]\.name: a number, expected a string/],
    ['a generation that is text', doc({ ...won, timeline: [{ at: 'x', object: 'App', generation: '1' }] }), /timeline\[0\]\.generation: "1", expected an integer/],
    ['an assertion ok that is text', doc({ ...won, assertions: [{ description: 'd', ok: 'yes', detail: '' }] }), /assertions\[0\]\.ok: expected true or false/],
    ['a null field', doc({ ...won, reason: null }), /results\[0\]\.reason: null, expected a string/],
    ['a pull request number that is text', { ...doc(won), prNumber: '7' }, /\$\.prNumber: "7", expected an integer/],
    ['a diagnostics folder with ..', doc({ ...won, diagnostics: { dir: '../../../home/runner', excerpt: '' } }), /diagnostics\.dir: "\.\.\/\.\.\/\.\.\/home\/runner" is not a path inside the artifact/],
    ['an absolute diagnostics folder', doc({ ...won, diagnostics: { dir: '/etc', excerpt: '' } }), /diagnostics\.dir: "\/etc" is not a path inside the artifact/],
    ['too many results', doc(...Array.from({ length: UNTRUSTED_LIMITS.results + 1 }, () => won)), /257 package results, more than the 256/],
  ])('%s: refused, saying where', (_what, raw, why) => {
    const r = readResultsDocument(raw);
    expect(r).toEqual({ refused: expect.stringMatching(why) });
  });

  test('at most five violations are listed', () => {
    const r = readResultsDocument(doc(...Array.from({ length: 9 }, () => ({ ...won, verdict: 'nope' }))));
    expect('refused' in r && r.refused.split('; ')).toHaveLength(5);
  });

  test('a refusal quotes a hostile value cleaned and short', () => {
    const r = readResultsDocument(doc({ ...won, verdict: `\u001b[32m::set-output name=result::success${'x'.repeat(500)}` }));
    // eslint-disable-next-line no-control-regex -- looking for what must not be there
    expect('refused' in r && r.refused).not.toMatch(/\u001b|^::/);
    expect('refused' in r && r.refused.length).toBeLessThan(300);
  });

  test('an error result may lack its dev version; unknown fields are ignored', () => {
    const r = read(doc({ ...won, verdict: 'error', devVersion: undefined, future: { x: 1 } }));
    expect(r.doc.results[0]).not.toHaveProperty('future');
    expect(r.doc.results[0]!.devVersion).toBeUndefined();
  });
});

describe('readResultsDocument: hostile text is cleaned, every field', () => {
  const hostile = '\u001b[31m::set-output name=result::success\r\n::add-mask::x\u0000';
  test.each<[string, Record<string, unknown>, (r: ReadDocument) => string]>([
    ['name', { name: hostile }, (r) => r.doc.results[0]!.name],
    ['reason', { reason: hostile }, (r) => r.doc.results[0]!.reason],
    ['timeline message', { timeline: [{ at: 't', object: hostile, message: hostile }] }, (r) => `${r.doc.results[0]!.timeline[0]!.object}\n${r.doc.results[0]!.timeline[0]!.message}`],
    ['phase detail', { phases: [{ name: hostile, detail: hostile }] }, (r) => `${r.doc.results[0]!.phases![0]!.name}\n${r.doc.results[0]!.phases![0]!.detail}`],
    ['diagnostics excerpt', { verdict: 'lost', diagnostics: { dir: '', excerpt: hostile } }, (r) => r.doc.results[0]!.diagnostics!.excerpt],
    ['problem message', { problems: [{ path: hostile, message: hostile, severity: 'error' }] }, (r) => `${r.doc.results[0]!.problems![0]!.path}\n${r.doc.results[0]!.problems![0]!.message}`],
    ['plan YAML and commands', { verdict: 'planned', mode: 'plan', plan: { packageYaml: hostile, commands: [hostile] } }, (r) => `${r.doc.results[0]!.plan!.packageYaml}\n${r.doc.results[0]!.plan!.commands[0]}`],
  ])('%s', (_what, over, pick) => {
    const out = pick(read(doc({ ...won, ...over })));
    // eslint-disable-next-line no-control-regex -- looking for what must not be there
    expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(out).not.toMatch(/^\s*::/m);
    expect(out).toContain('set-output name=result::success');
  });

  test('one-line fields stay one line; blocks keep their lines', () => {
    const r = read(doc({ ...won, name: 'a\nb', reason: 'a\nb' }));
    expect(r.doc.results[0]!.name).toBe('a b');
    expect(r.doc.results[0]!.reason).toBe('a\nb');
  });
});

describe('readResultsDocument: sizes', () => {
  test.each<[string, Record<string, unknown>, (r: ReadDocument) => string, number, RegExp]>([
    ['a reason', { reason: 'r'.repeat(10_000) }, (r) => r.doc.results[0]!.reason, UNTRUSTED_LIMITS.fieldChars, /results\[0\]\.reason was cut to 4096 characters/],
    ['a name', { name: 'n'.repeat(5000) }, (r) => r.doc.results[0]!.name, UNTRUSTED_LIMITS.fieldChars, /results\[0\]\.name was cut/],
    ['an excerpt', { verdict: 'lost', diagnostics: { dir: '', excerpt: 'e'.repeat(100_000) } }, (r) => r.doc.results[0]!.diagnostics!.excerpt, UNTRUSTED_LIMITS.blockChars, /diagnostics\.excerpt was cut to 16384/],
  ])('%s is cut with a note, the rest read', (_what, over, pick, max, note) => {
    const r = read(doc({ ...won, ...over }, { ...won, name: 'calico' }));
    expect(pick(r).length).toBeLessThanOrEqual(max);
    expect(pick(r)).toMatch(/characters cut by devpkg: the limit is \d+\)$/);
    expect(r.notes).toEqual([expect.stringMatching(note)]);
    expect(r.doc.results.map((x) => x.name)[1]).toBe('calico');
  });

  test('a long timeline keeps its last entries, with a note', () => {
    const timeline = Array.from({ length: 600 }, (_, i) => ({ at: String(i), object: 'App' }));
    const r = read(doc({ ...won, timeline }));
    expect(r.doc.results[0]!.timeline).toHaveLength(UNTRUSTED_LIMITS.listItems);
    expect(r.doc.results[0]!.timeline[0]!.at).toBe('100');
    expect(r.notes).toEqual(['results[0].timeline had 600 entries; the last 500 were kept']);
  });
});

test.each<[string, string | undefined]>([
  ['diagnostics/antrea-1.5.3', 'diagnostics/antrea-1.5.3'],
  ['./diagnostics//x/', 'diagnostics/x'],
  ['../x', undefined],
  ['diagnostics/../../x', undefined],
  ['/etc', undefined],
  ['\\\\server\\share', undefined],
  ['C:\\Windows', undefined],
  ['a\u0000b', undefined],
])('artifactRelativePath(%j) is %j', (p, want) => {
  expect(artifactRelativePath(p)).toBe(want);
});

test('docs/workflows.md names every limit as the code has it', async () => {
  const { readFileSync } = await import('node:fs');
  const docs = readFileSync('docs/workflows.md', 'utf8');
  const rows = docs.split('\n').filter((l) => l.startsWith('| ') && /characters|MiB|\| \d+ \|/.test(l));
  // The last number of the Limit cell: `1 MiB (1048576 bytes)` is 1048576.
  const limits = rows.map((l) => Number(l.split('|')[2]!.match(/\d+/g)!.pop()));
  const L = UNTRUSTED_LIMITS;
  expect(limits).toEqual([L.fileBytes, L.results, L.fieldChars, L.blockChars, L.listItems]);
});

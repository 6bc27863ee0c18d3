import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runner, fileCommandBlock, workflowCommand } from './runner.js';

describe('workflow commands', () => {
  test.each([
    ['warning', 'plain', {}, '::warning::plain'],
    ['error', 'a\nb 100%', { file: 'addons/packages/a/1.0.0/package.yaml', line: 3 }, '::error file=addons/packages/a/1.0.0/package.yaml,line=3::a%0Ab 100%25'],
    ['warning', 'x', { title: 'a: b, c' }, '::warning title=a%3A b%2C c::x'],
    ['add-mask', 's3cr3t', {}, '::add-mask::s3cr3t'],
  ])('%s %j', (name, msg, props, expected) => {
    expect(workflowCommand(name, msg, props)).toBe(expected);
  });

  test('a value containing the delimiter is refused', () => {
    expect(() => fileCommandBlock('out', 'a EOF b', 'EOF')).toThrow(/delimiter/);
    expect(fileCommandBlock('out', 'v', 'D')).toBe('out<<D\nv\nD\n');
  });
});

describe('Runner', () => {
  const dir = mkdtempSync(join(tmpdir(), 'devpkg-runner-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('reads inputs, writes outputs, state and summary the way the runner reads them', async () => {
    const files = { GITHUB_OUTPUT: join(dir, 'o'), GITHUB_STATE: join(dir, 's'), GITHUB_STEP_SUMMARY: join(dir, 'm') };
    for (const f of Object.values(files)) writeFileSync(f, '');
    const printed: string[] = [];
    const r = new Runner({ ...files, 'INPUT_PACKAGES-DIR': '  addons/packages ', INPUT_MY_INPUT: 'x', STATE_isPost: 'true' }, (t) => printed.push(t));
    expect(r.getInput('packages-dir')).toBe('addons/packages');
    expect(r.getInput('my input')).toBe('x');
    expect(r.getInput('missing')).toBe('');
    expect(r.getState('isPost')).toBe('true');
    r.setOutput('matrix', '{"include":[]}\nsecond line');
    r.saveState('cleanup', '[]');
    r.appendSummary('# devpkg');
    await r.group('Plan', async () => r.info('inside'));
    expect(readFileSync(files.GITHUB_OUTPUT, 'utf8')).toMatch(/^matrix<<(ghadelimiter_[0-9a-f-]+)\n\{"include":\[\]\}\nsecond line\n\1\n$/);
    expect(readFileSync(files.GITHUB_STATE, 'utf8')).toMatch(/^cleanup<<ghadelimiter_.*\n\[\]\n/);
    expect(readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8')).toBe('# devpkg\n');
    expect(printed.join('')).toBe('::group::Plan\ninside\n::endgroup::\n');
  });
});

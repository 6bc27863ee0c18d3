// Keeps the README true: every action input and output, and every CLI command, is documented,
// and the README starts with the two set-up commands.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { COMMANDS } from '../../src/cli.js';

const readme = readFileSync('README.md', 'utf8');
const action = parse(readFileSync('action.yml', 'utf8')) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };

test('the README opens with the two set-up commands', () => {
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const commands = block.split('\n').filter((l) => l.trim()).map((l) => l.replace(/\s+#.*$/, ''));
  expect(commands).toEqual(['npm ci && npm start', 'npm ci && npm test']);
});

test.each(Object.keys(action.inputs))('input %s is in the README table', (name) => {
  expect(readme).toContain(`| \`${name}\` |`);
});

test.each(Object.keys(action.outputs))('output %s is in the README table', (name) => {
  expect(readme).toContain(`| \`${name}\` |`);
});

test.each(Object.keys(COMMANDS))('command %s is in the README', (name) => {
  expect(readme).toContain(`devpkg ${name} `);
});

test('.ci/run calls the same test command', () => {
  expect(readFileSync('.ci/run', 'utf8')).toMatch(/^npm test$/m);
});

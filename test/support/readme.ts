// The README's "try kind mode" commands, read from the README itself: the shell block right after
// the paragraph that starts "Try kind mode". The unit tier checks them; the kind harness runs them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function tryKindModeCommands(root = '.'): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const at = readme.indexOf('\nTry kind mode');
  if (at < 0) throw new Error('README.md has no "Try kind mode" paragraph');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  if (block === undefined) throw new Error('README.md: no ```sh block after "Try kind mode"');
  return block.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
}

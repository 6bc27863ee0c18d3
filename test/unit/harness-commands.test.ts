// Every external command the tests start is one the project's own scripts install or build
// (test/harness/versions.env), so a new machine never fails a test with "spawn X ENOENT"
// (a new machine once failed 14 bundle tests that way: htpasswd came from no script).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Functions that start a process with the command as their first argument, in our tests. */
const SPAWNERS = ['execFileSync', 'execFile', 'execFileP', 'spawn', 'spawnSync', 'runTool'];

/** Command names passed as a string literal to a spawner (pure). */
export function spawnedCommands(source: string): string[] {
  const re = new RegExp(`\\b(?:${SPAWNERS.join('|')})\\(\\s*['"]([A-Za-z0-9][A-Za-z0-9._-]*)['"]`, 'g');
  return [...source.matchAll(re)].map((m) => m[1]!);
}

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) files(p, out);
    else if (/\.(ts|mjs|js)$/.test(name) || p.endsWith('standin/tanzu/tanzu')) out.push(p);
  }
  return out;
}

/** `controlplane.sh commands`: "command provider" lines. */
function provided(): Map<string, string> {
  const text = execFileSync('bash', ['test/harness/controlplane.sh', 'commands'], { encoding: 'utf8' });
  return new Map(text.trim().split('\n').map((l) => l.split(' ') as [string, string]));
}

test.each([
  [`execFileSync('git', ['init'])`, ['git']],
  [`const p = spawn('htpasswd', ['-iBc', f, u]);`, ['htpasswd']],
  [`await runTool("skopeo", ['inspect']); spawnSync('bash', [s])`, ['skopeo', 'bash']],
  [`exec(cmd); spawn(binary, args); respawn('x')`, []],
])('spawnedCommands(%s)', (source, expected) => {
  expect(spawnedCommands(source)).toEqual(expected);
});

test('the harness names what provides every command, and the list has the ones it must', () => {
  const list = provided();
  expect(list.get('htpasswd')).toBe('debian:apache2-utils');
  expect(list.get('docker-registry')).toBe('debian:docker-registry');
  expect(list.get('kube-apiserver')).toBe('built:kubernetes');
  expect(list.get('git')).toBe('debian:git');
});

test('every command a test or the tanzu stand-in starts is installed or built by the harness', () => {
  const list = provided();
  const unprovided: string[] = [];
  for (const file of files('test')) {
    for (const cmd of spawnedCommands(readFileSync(file, 'utf8'))) {
      if (!list.has(cmd)) unprovided.push(`${file}: ${cmd}`);
    }
  }
  expect(unprovided).toEqual([]);
});

// The settings table is the one list: held against action.yml's inputs (so an input added there
// without a key fails here) and against every flag the commands' --help texts list.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { COMMANDS } from '../cli.js';
import { envName, flagOf, PER_CALL_FLAGS, setting, SETTING_NAMES } from './schema.js';

const action = parse(readFileSync('action.yml', 'utf8')) as { inputs: Record<string, { default?: string }> };
/** Inputs that are no setting: mode (a command on the CLI) and config (names the file). */
const NOT_SETTINGS = ['mode', 'config'];

test('every action input is a key and every key marked as an input is one (both ways)', () => {
  const inputs = Object.keys(action.inputs).filter((n) => !NOT_SETTINGS.includes(n));
  const keys = SETTING_NAMES.filter((k) => setting(k)!.input !== false);
  expect(keys.filter((k) => !inputs.includes(k))).toEqual([]);
  expect(inputs.filter((k) => !keys.includes(k as never))).toEqual([]);
});

test.each(Object.entries(action.inputs).filter(([n]) => !NOT_SETTINGS.includes(n) && n !== 'github-token'))(
  'action.yml gives %s no default of its own (it would shadow devpkg.yaml; the default is in the table)',
  (_name, input) => {
    expect(input.default ?? '').toBe('');
  },
);

/** Each command's flags, read from its --help: its Usage paragraph and its flag lines' first column. */
async function helpFlags(): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    let help = '';
    await (await entry.load()).run(['--help'], { stdout: (t) => (help += t), stderr: () => undefined, env: {}, cwd: process.cwd() });
    const usage = help.split('\n\n')[0]!;
    const columns = help
      .split('\n')
      .filter((l) => /^\s+(?:-[a-zA-Z], )?--[a-z]/.test(l))
      .map((l) => l.trim().split(/\s{2,}/)[0]!);
    out.set(name, new Set([usage, ...columns].flatMap((t) => [...t.matchAll(/--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!))));
  }
  return out;
}

test('every flag a command lists is a key\'s flag or a per-call flag, and every key\'s flag is some command\'s', async () => {
  const flags = await helpFlags();
  const keyFlags = new Set(SETTING_NAMES.map(flagOf).filter((f): f is string => f !== undefined));
  const unplaced: string[] = [];
  for (const [command, set] of flags) {
    for (const f of set) if (!keyFlags.has(f) && !(PER_CALL_FLAGS as readonly string[]).includes(f)) unplaced.push(`devpkg ${command} --${f}`);
  }
  expect(unplaced).toEqual([]);
  // Every command takes --config FILE (parseCommand adds it) and its help says so.
  expect([...flags].filter(([, set]) => !set.has('config')).map(([c]) => c)).toEqual([]);
  const all = new Set([...flags.values()].flatMap((s) => [...s]));
  expect([...keyFlags].filter((f) => !all.has(f))).toEqual([]);
});

test.each([
  ['packages-dir', 'DEVPKG_PACKAGES_DIR'],
  ['kind-node-image', 'DEVPKG_KIND_NODE_IMAGE'],
  ['registry-image', 'DEVPKG_KIND_REGISTRY_IMAGE'],
  ['registry-password', 'DEVPKG_REGISTRY_PASSWORD'],
])('%s is read from %s', (key, env) => {
  expect(envName(key)).toBe(env);
});

test('no two keys share a variable, and none is a variable devpkg uses for something else', () => {
  const names = SETTING_NAMES.map(envName);
  expect(new Set(names).size).toBe(names.length);
  // Given to push commands (DEVPKG_REGISTRY is the registry the run pushes to: the same meaning) or
  // used by the tests and harness.
  const other = ['DEVPKG_PACKAGE', 'DEVPKG_VERSION', 'DEVPKG_TAG', 'DEVPKG_IMAGE', 'DEVPKG_BUNDLE_DIR', 'DEVPKG_DEBUG', 'DEVPKG_CACHE', 'DEVPKG_SHARED_DIR', 'DEVPKG_CONFIG'];
  expect(names.filter((n) => other.includes(n) || /^DEVPKG_(TEST|HARNESS|STANDIN|KIND_STATE|KIND_ENGINE)/.test(n))).toEqual([]);
});

/**
 * The two places settings are layered: under a command's flags (the CLI) and under the action's
 * inputs. Both read the same devpkg.yaml and DEVPKG_* variables (src/config/load.ts).
 */
import { resolve } from 'node:path';
import { parseList } from '../flags.js';
import type { InputSource } from '../inputs.js';
import { checkValues, layerSource, loadConfig, mergeLayers, TRUE_WORDS, type Layer } from './load.js';
import { flagOf, setting, SETTING_NAMES } from './schema.js';

type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;
type FlagTable = Record<string, { type: 'string' | 'boolean' }>;

/**
 * Fills the flags a command takes and was not given from DEVPKG_* and devpkg.yaml (checked
 * first, each value named by its variable or file:line). The file is the one --config names,
 * else DEVPKG_CONFIG, else the devpkg.yaml found from --repo (or DEVPKG_WORKING_DIRECTORY, or
 * the current folder) up to the git top level. A key the command does not take is left alone.
 */
export function applyConfig(values: FlagValues, flags: FlagTable, ctx: { env: NodeJS.ProcessEnv; cwd: string }): void {
  const given: Layer = new Map();
  for (const key of SETTING_NAMES) {
    const flag = flagOf(key);
    const v = flag === undefined ? undefined : values[flag];
    if (typeof v === 'string') given.set(key, { text: v, origin: { kind: 'flag', name: flag! } });
    if (typeof v === 'boolean') given.set(key, { text: String(setting(key)!.invert ? !v : v), origin: { kind: 'flag', name: flag! } });
  }
  const repo = typeof values.repo === 'string' ? values.repo : 'repo' in flags ? ctx.env.DEVPKG_WORKING_DIRECTORY?.trim() || undefined : undefined;
  const loaded = loadConfig({
    start: resolve(ctx.cwd, repo ?? '.'),
    configFile: typeof values.config === 'string' ? values.config : undefined,
    env: ctx.env,
    cwd: ctx.cwd,
  });
  const merged = mergeLayers([given, loaded.env, loaded.fileLayer]);
  if (![...merged.values()].some((v) => v.origin.kind !== 'flag')) return;
  checkValues(merged);
  for (const [key, v] of merged) {
    const flag = flagOf(key);
    if (v.origin.kind === 'flag' || flag === undefined || !(flag in flags)) continue;
    const spec = setting(key)!;
    if (flags[flag]!.type === 'boolean') values[flag] = TRUE_WORDS.includes(v.text.trim()) !== Boolean(spec.invert);
    else values[flag] = spec.kind === 'list' ? parseList(v.text).join(',') : v.text;
  }
}

/**
 * The action's inputs over DEVPKG_* and devpkg.yaml: an input left empty is read from the
 * environment, then from the file found in working-directory (or named by the input config),
 * then the default in src/config/schema.ts. Messages name a file's value by file:line.
 */
export function configuredInputs(input: InputSource, env: NodeJS.ProcessEnv, workspace: string): InputSource {
  const given: Layer = new Map();
  for (const key of SETTING_NAMES) {
    if (setting(key)!.input === false) continue;
    const text = input.getInput(key);
    if (text.trim() !== '') given.set(key, { text, origin: { kind: 'input', name: key } });
  }
  const wd = given.get('working-directory')?.text.trim() || env.DEVPKG_WORKING_DIRECTORY?.trim() || '.';
  const start = resolve(workspace, wd);
  const loaded = loadConfig({ start, configFile: input.getInput('config'), configWhat: 'input config', configBase: start, env, cwd: workspace });
  const mode = input.getInput('mode').trim();
  // A shared file's registry is for the modes that push to one: kind mode pushes only to the
  // registry it creates, and refuses the input; from the file or the environment it is ignored.
  if (mode === 'kind') for (const layer of [loaded.env, loaded.fileLayer]) layer.delete('registry');
  const merged = mergeLayers([given, loaded.env, loaded.fileLayer]);
  return layerSource(merged, { extra: { mode }, input });
}

/**
 * devpkg.yaml and the DEVPKG_* variables: found, read and checked here, then layered under the
 * flags (CLI) or the inputs (action): flag or input > environment > file > default. Every value
 * keeps where it came from, so a bad one is named by its flag, variable or file:line.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, stringify, type Node } from 'yaml';
import { duplicateKey } from '../packages/yaml-keys.js';
import { UsageError } from '../errors.js';
import { parseInputs, type InputSource } from '../inputs.js';
import { closestKey, defaultOf, envName, flagOf, setting, SETTING_NAMES, SETTINGS, type SettingKey } from './schema.js';

export const CONFIG_FILE_NAME = 'devpkg.yaml';

/** Booleans as @actions/core reads them (the YAML 1.2 core schema's spellings). */
export const TRUE_WORDS = ['true', 'True', 'TRUE'];
const FALSE_WORDS = ['false', 'False', 'FALSE'];

/** Where a value came from. */
export type Origin =
  | { kind: 'flag'; name: string }
  | { kind: 'input'; name: string }
  | { kind: 'env'; name: string }
  | { kind: 'file'; file: string; line: number }
  | { kind: 'default' };

export interface Value {
  text: string;
  origin: Origin;
}

/** A layer: key -> value, all from one origin kind. */
export type Layer = Map<string, Value>;

/** How a value is named in a message: `--settle`, `input settle`, `DEVPKG_SETTLE`, `devpkg.yaml:3: settle`. */
export function describeOrigin(key: string, origin: Origin): string {
  switch (origin.kind) {
    case 'flag':
      return `--${origin.name}`;
    case 'input':
      return `input ${origin.name}`;
    case 'env':
      return origin.name;
    case 'file':
      return `${origin.file}:${origin.line}: ${key}`;
    case 'default':
      return `${key} (default)`;
  }
}

/** For `devpkg config`: flag, env NAME, file:line or default. */
export function originLabel(origin: Origin): string {
  switch (origin.kind) {
    case 'flag':
      return `flag --${origin.name}`;
    case 'input':
      return `input ${origin.name}`;
    case 'env':
      return `env ${origin.name}`;
    case 'file':
      return `${origin.file}:${origin.line}`;
    case 'default':
      return 'default';
  }
}

/**
 * The devpkg.yaml that applies to a folder: the folder's own, else its parents' up to the git
 * top level (the nearest folder holding .git); outside a git work tree, only the folder's.
 */
export function findConfigFile(start: string): string | undefined {
  let dir = resolve(start);
  const chain: string[] = [dir];
  for (let d = dir; !existsSync(join(d, '.git')); ) {
    const up = dirname(d);
    if (up === d) {
      chain.splice(1);
      break;
    }
    chain.push((d = up));
  }
  for (dir of chain) {
    const file = join(dir, CONFIG_FILE_NAME);
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** A path as messages show it: relative to cwd when under it. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/**
 * Reads a devpkg.yaml into a layer. Refuses, naming file:line: YAML that does not parse, a
 * top level that is not a mapping, an unknown key, a key a file may not hold (secrets,
 * working-directory) and a value of the wrong shape. Paths are made absolute against the
 * file's folder, so the file means the same from wherever devpkg runs.
 */
export function readConfigFile(file: string, cwd: string): Layer {
  const shown = displayPath(file, cwd);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${shown}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const lc = new LineCounter();
  // uniqueKeys off: the library's check is quadratic in a map's keys; duplicateKey is linear.
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: false, prettyErrors: false });
  const lineOf = (pos: number | undefined) => lc.linePos(pos ?? 0).line;
  const refuse = (pos: number | undefined, message: string): never => {
    throw new UsageError(`${shown}:${lineOf(pos)}: ${message}`);
  };
  const err = doc.errors[0];
  if (err) refuse(err.pos[0], `not valid YAML: ${err.message.split('\n')[0]}`);
  const dup = duplicateKey(doc);
  if (dup) refuse(dup.pos, 'not valid YAML: Map keys must be unique');
  const layer: Layer = new Map();
  const top = doc.contents;
  if (top === null || (isScalar(top) && (top.value === null || top.value === ''))) return layer;
  if (!isMap(top)) return refuse(top.range?.[0], 'give a mapping of settings, e.g. "packages-dir: packages" (see devpkg config --help)');
  for (const pair of top.items) {
    const keyNode = pair.key as Node | null;
    const pos = keyNode?.range?.[0];
    const key = isScalar(keyNode) ? String(keyNode.value) : '';
    const spec = setting(key);
    if (!spec) {
      const near = closestKey(key);
      refuse(pos, `unknown key "${key}"${near ? `; did you mean ${near}?` : ''} (the keys are the action's input names; devpkg config --help lists them)`);
    }
    if (spec!.notInFile) refuse(pos, `${key}: not read from a file: ${spec!.notInFile}`);
    const textValue = valueText(key, spec!, pair.value as Node | null, (m) => refuse(pos, `${key}: ${m}`));
    const value = spec!.kind === 'path' && textValue !== '' && !/^https?:\/\//i.test(textValue) ? resolve(dirname(file), textValue) : textValue;
    layer.set(key, { text: value, origin: { kind: 'file', file: shown, line: lineOf(pos) } });
  }
  return layer;
}

/** A file value as the input's text: scalars as written, a list one item a line. */
function valueText(key: string, spec: SettingKey, node: Node | null, refuse: (m: string) => never): string {
  if (node === null || (isScalar(node) && node.value === null)) return refuse('has no value; give one or remove the line');
  if (spec.kind === 'yaml') return isScalar(node) ? String(node.value) : stringify(node).trimEnd();
  if (isScalar(node)) {
    if (spec.kind === 'boolean' && typeof node.value !== 'boolean') {
      return refuse(`"${String(node.value)}" is not a boolean; use true or false`);
    }
    return String(node.value);
  }
  if (spec.kind === 'list' && isSeq(node)) {
    return node.items
      .map((item) => {
        if (!isScalar(item) || item.value === null) return refuse('give a list of strings, one item each');
        return String(item.value);
      })
      .join('\n');
  }
  return refuse(spec.kind === 'list' ? 'give a string or a list of strings' : `give a single value, not a ${isSeq(node) ? 'list' : 'mapping'}`);
}

/** The DEVPKG_* variables of the keys (only those: DEVPKG_DEBUG, DEVPKG_CACHE... are no keys); empty is unset. */
export function envLayer(env: NodeJS.ProcessEnv): Layer {
  const layer: Layer = new Map();
  for (const key of SETTING_NAMES) {
    const name = envName(key);
    const text = env[name];
    if (text !== undefined && text.trim() !== '') layer.set(key, { text, origin: { kind: 'env', name } });
  }
  return layer;
}

/** The defaults of every key that has one. */
export function defaultLayer(): Layer {
  const layer: Layer = new Map();
  for (const key of SETTING_NAMES) if (defaultOf(key) !== '') layer.set(key, { text: defaultOf(key), origin: { kind: 'default' } });
  return layer;
}

/**
 * Layers merged, the first winning. A group (which packages; where kapp-controller comes from) is
 * taken whole from the first layer that holds any of its keys.
 */
export function mergeLayers(layers: Layer[]): Layer {
  const out: Layer = new Map();
  const groupLayer = new Map<string, number>();
  for (const key of SETTING_NAMES) {
    const group = (SETTINGS as Record<string, SettingKey>)[key]!.group;
    if (group && !groupLayer.has(group)) {
      const i = layers.findIndex((l) => [...l.keys()].some((k) => setting(k)?.group === group));
      if (i >= 0) groupLayer.set(group, i);
    }
  }
  for (const key of SETTING_NAMES) {
    const group = setting(key)!.group;
    const candidates = group && groupLayer.has(group) ? [layers[groupLayer.get(group)!]!] : layers;
    for (const layer of candidates) {
      const v = layer.get(key);
      if (v) {
        out.set(key, v);
        break;
      }
    }
  }
  return out;
}

/** What the config file and environment say for a folder (before the flags or inputs). */
export interface LoadedConfig {
  /** The file read, if any (absolute). */
  file?: string;
  env: Layer;
  fileLayer: Layer;
}

/**
 * Finds and reads the settings: `configFile` (from --config, the input config or DEVPKG_CONFIG)
 * must exist; else the devpkg.yaml found from `start`.
 */
export function loadConfig(opts: {
  start: string;
  configFile?: string;
  /** How the named file is called in messages (default --config). */
  configWhat?: string;
  /** What a named file is relative to (default cwd). */
  configBase?: string;
  env: NodeJS.ProcessEnv;
  /** Where devpkg runs: files are shown relative to it. */
  cwd: string;
}): LoadedConfig {
  let file: string | undefined;
  const named = opts.configFile?.trim() || opts.env.DEVPKG_CONFIG?.trim();
  if (named) {
    file = resolve(opts.configFile?.trim() ? (opts.configBase ?? opts.cwd) : opts.cwd, named);
    const what = opts.configFile?.trim() ? (opts.configWhat ?? '--config') : 'DEVPKG_CONFIG';
    const kind = existsSync(file) ? (statSync(file).isFile() ? 'file' : 'other') : 'none';
    if (kind === 'none') throw new UsageError(`${what}: ${named} does not exist; give a devpkg.yaml`);
    if (kind === 'other') throw new UsageError(`${what}: ${named} is not a file; give a devpkg.yaml`);
  } else {
    file = findConfigFile(opts.start);
  }
  return { file, env: envLayer(opts.env), fileLayer: file ? readConfigFile(file, opts.cwd) : new Map() };
}

/**
 * Checks merged values with the action's own parser (src/inputs.ts, which uses src/flags.ts),
 * each named by where it came from; the command-line-only keys by their kind.
 */
export function checkValues(merged: Layer): void {
  const source = layerSource(merged, { extra: { mode: 'plan' }, unset: (name) => `--${flagOf(name) ?? name}` });
  parseInputs(source);
  for (const [key, v] of merged) {
    const spec = setting(key)!;
    if (spec.input === false && spec.kind === 'boolean') source.getBooleanInput(key);
    if (spec.input === false && spec.kind === 'path' && v.text.trim() === '') {
      throw new UsageError(`${describeOrigin(key, v.origin)} is empty; give a path`);
    }
  }
}

/**
 * An InputSource over merged values (what parseInputs reads), naming each value by its origin.
 * Booleans follow @actions/core: true/True/TRUE, false/False/FALSE; `extra` fills keys the
 * merge does not hold (mode).
 */
export function layerSource(
  merged: Layer,
  opts: { extra?: Record<string, string>; input?: InputSource; unset?: (name: string) => string } = {},
): InputSource & { what(name: string): string } {
  const { extra = {}, input, unset = (name: string) => `input ${name}` } = opts;
  const get = (name: string): Value | undefined => merged.get(name);
  return {
    getInput: (name) => get(name)?.text.trim() ?? extra[name] ?? '',
    getBooleanInput: (name) => {
      const v = get(name);
      if (v?.origin.kind === 'input' && input) return input.getBooleanInput(name);
      const t = (v?.text ?? extra[name] ?? '').trim();
      if (TRUE_WORDS.includes(t)) return true;
      if (FALSE_WORDS.includes(t)) return false;
      throw new UsageError(`${v ? describeOrigin(name, v.origin) : unset(name)}: "${t}" is not a boolean; use true or false`);
    },
    getMultilineInput: (name) => {
      const v = get(name);
      if (v?.origin.kind === 'input' && input) return input.getMultilineInput(name);
      return (v?.text ?? extra[name] ?? '').split('\n').filter((l) => l !== '');
    },
    what: (name) => {
      const v = get(name);
      return v ? describeOrigin(name, v.origin) : unset(name);
    },
  };
}


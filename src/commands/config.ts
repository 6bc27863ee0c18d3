import { resolve } from 'node:path';
import { stringify } from 'yaml';
import { defaultLayer, loadConfig, mergeLayers, originLabel, type Layer } from '../config/load.js';
import { envName, SETTING_NAMES, setting } from '../config/schema.js';
import { parseCommand, requireFolder, type CliIO } from './io.js';
import { booleans, strings } from './options.js';

const USAGE = `Usage: devpkg config [--repo DIR] [--config FILE] [--json]

Prints the effective settings and where each came from: a flag, a DEVPKG_* variable, the
devpkg.yaml (file:line) or devpkg's default. Every command reads them the same way, a flag first:
  flag > environment (DEVPKG_PACKAGES_DIR for packages-dir, ...) > devpkg.yaml > default.

devpkg.yaml is looked for in --repo (default: the current folder), then in each folder above it up
to the git top level (the folder holding .git); --config FILE (or DEVPKG_CONFIG) names another,
which must exist. Its keys are the action's input names, e.g.

  packages-dir: packages
  layout: tce
  ref-name: antrea.community.tanzu.vmware.com=antrea.tanzu.vmware.com
  registry: ghcr.io/my-org/dev
  settle: 90s
  ignore: ["**/*.md", docs/**]

plus results-dir, diagnostics, plain-http and no-install. A key a command does not take is
ignored by it; an unknown key, a bad value or a secret (registry-password, github-token) is
refused with its file:line. Paths in the file are relative to the file's folder.

  --repo DIR       the packages repository (default: .)
  --config FILE    the devpkg.yaml to read instead of the one found
  --json           {"file", "settings": {KEY: {"value", "source", "env"}}}; unset keys have value null
  -h, --help       show this help

Exit codes: 0 ok, 2 bad usage or a bad devpkg.yaml.
`;

/** Secrets are shown as set, never printed. */
const SECRET = new Set(['registry-password', 'github-token']);

export async function run(argv: string[], io: CliIO): Promise<number> {
  const values = parseCommand(argv, io, USAGE, { ...strings('repo', 'config'), ...booleans('json') });
  if (!values) return 0;
  const given: Layer = new Map();
  if (values.repo !== undefined) given.set('working-directory', { text: values.repo, origin: { kind: 'flag', name: 'repo' } });
  const repo = values.repo ?? io.env.DEVPKG_WORKING_DIRECTORY?.trim() ?? '.';
  await requireFolder(resolve(io.cwd, repo || '.'), values.repo !== undefined ? '--repo' : 'DEVPKG_WORKING_DIRECTORY');
  // parseCommand has checked the file and the variables; this reads them again for their origins.
  const loaded = loadConfig({ start: resolve(io.cwd, repo || '.'), configFile: values.config, env: io.env, cwd: io.cwd });
  const merged = mergeLayers([given, loaded.env, loaded.fileLayer, defaultLayer()]);
  const shown = (key: string, text: string) => (SECRET.has(key) ? '***' : text);
  if (values.json) {
    const settings = Object.fromEntries(
      SETTING_NAMES.map((key) => {
        const v = merged.get(key);
        return [key, { value: v ? shown(key, v.text) : null, source: v ? originLabel(v.origin) : null, env: envName(key) }];
      }),
    );
    io.stdout(`${JSON.stringify({ file: loaded.file ?? null, settings }, null, 2)}\n`);
    return 0;
  }
  const lines = [loaded.file ? `# from ${loaded.file}` : `# no devpkg.yaml found from ${resolve(io.cwd, repo || '.')} up to the git top level`];
  for (const key of SETTING_NAMES) {
    const v = merged.get(key);
    if (!v) continue;
    const text = shown(key, v.text);
    // A block scalar's header line takes the comment; its lines follow.
    const [first, ...rest] = stringify(setting(key)!.kind === 'list' ? text.split('\n') : text, { flow: setting(key)!.kind === 'list' }).trimEnd().split('\n');
    lines.push(`${key}: ${first}  # ${originLabel(v.origin)}`, ...rest);
  }
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

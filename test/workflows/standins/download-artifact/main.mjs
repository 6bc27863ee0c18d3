// Stand-in for actions/download-artifact: see action.yml.
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { booleanInput, globRegExp, info, input, runAction, runStore, setOutput } from './common.mjs';

await runAction(import.meta.url, 'the actions/download-artifact stand-in', async () => {
  const workspace = process.env.GITHUB_WORKSPACE;
  const token = input('github-token');
  // Without a token the real action downloads from the current run of the current repository.
  const repository = token ? input('repository') || process.env.GITHUB_REPOSITORY : process.env.GITHUB_REPOSITORY;
  const runId = token ? input('run-id') || process.env.GITHUB_RUN_ID : process.env.GITHUB_RUN_ID;
  const store = runStore(repository ?? '', runId ?? '');
  const name = input('name');
  const ids = input('artifact-ids');
  if (name && ids) throw new Error('Inputs name and artifact-ids cannot be used together');
  const home = process.env.HOME ?? '';
  const raw = input('path');
  const path = raw.startsWith('~/') ? join(home, raw.slice(2)) : resolve(workspace, raw || '.');
  const merge = booleanInput('merge-multiple');

  const all = existsSync(store)
    ? readdirSync(store)
        .filter((f) => f.endsWith('.artifact.json'))
        .map((f) => JSON.parse(readFileSync(join(store, f), 'utf8')))
    : [];
  let chosen;
  let single = false;
  if (name) {
    chosen = all.filter((a) => a.name === name);
    if (chosen.length === 0) {
      if (booleanInput('allow-not-found')) {
        info(`Artifact not found: ${name} (allow-not-found)`);
        setOutput('download-path', path);
        setOutput('artifacts', '[]');
        return;
      }
      throw new Error(`Unable to download artifact(s): Artifact not found for name: ${name}\n        Please ensure that your artifact is not expired and the artifact was uploaded using a compatible version of toolkit/upload-artifact.`);
    }
    single = true;
  } else if (ids) {
    const want = ids.split(',').map((s) => s.trim()).filter(Boolean);
    chosen = all.filter((a) => want.includes(a.id));
    const missing = want.filter((id) => !chosen.some((a) => a.id === id));
    if (missing.length) throw new Error(`Artifact(s) not found for id(s): ${missing.join(', ')}`);
  } else {
    const pattern = input('pattern');
    const re = pattern ? globRegExp(pattern) : /^/;
    chosen = all.filter((a) => re.test(a.name));
  }
  chosen.sort((a, b) => a.name.localeCompare(b.name));
  info(`Found ${chosen.length} artifact(s) in run ${runId} of ${repository}`);
  for (const a of chosen) {
    const to = single || merge ? path : join(path, a.name);
    cpSync(join(store, a.name), to, { recursive: true });
    info(`Artifact download completed successfully: ${a.name} -> ${to}`);
  }
  setOutput('download-path', path);
  setOutput('artifacts', JSON.stringify(chosen.map((a) => ({ id: a.id, name: a.name, digest: a.digest }))));
});

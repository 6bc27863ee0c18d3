// Stand-in for actions/upload-artifact: see action.yml.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { badArtifactName, booleanInput, globRegExp, info, input, runAction, runStore, setOutput } from './common.mjs';

/** Every file under dir (paths relative to it). */
function walk(dir, hidden, out = [], prefix = '') {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!hidden && e.name.startsWith('.')) continue;
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) walk(join(dir, e.name), hidden, out, rel);
    else out.push(rel);
  }
  return out;
}

/** The absolute files one `path` line names (a file, a folder, or a glob; `!glob` excludes). */
function filesOf(line, workspace, hidden) {
  const home = process.env.HOME ?? '';
  const p = line.startsWith('~/') ? join(home, line.slice(2)) : resolve(workspace, line);
  if (!/[*?]/.test(p)) {
    if (!existsSync(p)) return { files: [], root: p };
    if (statSync(p).isDirectory()) return { files: walk(p, hidden).map((f) => join(p, f)), root: p };
    return { files: [p], root: dirname(p) };
  }
  const fixed = p.split(sep).findIndex((part) => /[*?]/.test(part));
  const root = p.split(sep).slice(0, fixed).join(sep) || sep;
  if (!existsSync(root)) return { files: [], root };
  const re = globRegExp(relative(root, p).split(sep).join('/'));
  // A glob matching a folder takes the folder's files, as the real action's search does.
  const files = walk(root, hidden).filter((f) => f.split('/').some((_, i, parts) => re.test(parts.slice(0, i + 1).join('/'))));
  return { files: files.map((f) => join(root, f)), root };
}

function commonAncestor(paths) {
  let parts = dirname(paths[0]).split(sep);
  for (const p of paths.slice(1)) {
    const q = dirname(p).split(sep);
    let i = 0;
    while (i < parts.length && i < q.length && parts[i] === q[i]) i++;
    parts = parts.slice(0, i);
  }
  return parts.join(sep) || sep;
}

await runAction(import.meta.url, 'the actions/upload-artifact stand-in', async () => {
  const workspace = process.env.GITHUB_WORKSPACE;
  const name = input('name') || 'artifact';
  const lines = input('path').split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) throw new Error('Input required and not supplied: path');
  const ifNone = input('if-no-files-found') || 'warn';
  if (!['warn', 'error', 'ignore'].includes(ifNone)) throw new Error(`if-no-files-found "${ifNone}" is not warn, error or ignore`);
  const retention = input('retention-days');
  if (retention && !(Number.isInteger(Number(retention)) && Number(retention) >= 0 && Number(retention) <= 90)) throw new Error(`retention-days "${retention}" is not 0-90`);
  const level = input('compression-level') || '6';
  if (!/^[0-9]$/.test(level)) throw new Error(`compression-level "${level}" is not 0-9`);
  const hidden = booleanInput('include-hidden-files');
  const overwrite = booleanInput('overwrite');
  const archive = input('archive') === '' ? true : booleanInput('archive');

  const include = new Set();
  const exclude = new Set();
  for (const line of lines) {
    const neg = line.startsWith('!');
    for (const f of filesOf(neg ? line.slice(1) : line, workspace, hidden).files) (neg ? exclude : include).add(f);
  }
  const files = [...include].filter((f) => !exclude.has(f)).sort();
  if (files.length === 0) {
    const msg = `No files were found with the provided path: ${lines.join(', ')}. No artifacts will be uploaded.`;
    if (ifNone === 'error') throw new Error(msg);
    if (ifNone === 'warn') process.stdout.write(`::warning::${msg}\n`);
    else info(msg);
    return;
  }
  let artifactName = name;
  if (!archive) {
    if (files.length !== 1) throw new Error(`archive: false uploads one file, but the path names ${files.length}`);
    artifactName = basename(files[0]);
  }
  if (badArtifactName(artifactName)) throw new Error(`The artifact name is not valid: "${artifactName}". It must not contain " : < > | * ? \\ / or a line break`);

  const store = runStore(process.env.GITHUB_REPOSITORY ?? '', process.env.GITHUB_RUN_ID ?? '');
  const dest = join(store, artifactName);
  mkdirSync(store, { recursive: true });
  // The name is claimed atomically (mkdir), so two legs uploading the same name cannot both succeed.
  const claim = `${dest}.claim`;
  try {
    mkdirSync(claim);
  } catch {
    throw new Error(`Failed to CreateArtifact: an artifact named "${artifactName}" is being uploaded by another step of this run`);
  }
  try {
    if (existsSync(dest)) {
      if (!overwrite) throw new Error(`Failed to CreateArtifact: Received non-retryable error: Failed request: (409) Conflict: an artifact with this name already exists on the workflow run`);
      rmSync(dest, { recursive: true, force: true });
      info(`Artifact "${artifactName}" existed and was deleted (overwrite: true)`);
    }
    const tmp = `${dest}.tmp-${process.pid}`;
    const root = commonAncestor(files);
    const hash = createHash('sha256');
    for (const f of files) {
      const rel = relative(root, f);
      if (isAbsolute(rel) || rel.startsWith('..')) throw new Error(`${f} is outside ${root}`);
      mkdirSync(dirname(join(tmp, rel)), { recursive: true });
      cpSync(f, join(tmp, rel));
      hash.update(rel).update('\0').update(readFileSync(f));
    }
    const id = String(Date.now() * 1000 + Math.floor(Math.random() * 1000));
    const digest = hash.digest('hex');
    writeFileSync(`${tmp}.json`, JSON.stringify({ id, name: artifactName, digest, files: files.length }));
    renameSync(tmp, dest);
    renameSync(`${tmp}.json`, `${dest}.artifact.json`);
    info(`Artifact ${artifactName} has been successfully uploaded! ${files.length} file(s), id ${id}`);
    setOutput('artifact-id', id);
    setOutput('artifact-url', `${process.env.GITHUB_SERVER_URL}/${process.env.GITHUB_REPOSITORY}/actions/runs/${process.env.GITHUB_RUN_ID}/artifacts/${id}`);
    setOutput('artifact-digest', digest);
  } finally {
    rmSync(claim, { recursive: true, force: true });
  }
});

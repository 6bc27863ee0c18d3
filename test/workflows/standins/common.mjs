// Shared by the stand-in actions (test/workflows/standins/*/main.mjs): the runner protocol as a
// JavaScript action sees it (inputs in INPUT_* variables, outputs and PATH additions in the files
// GITHUB_OUTPUT and GITHUB_PATH name), and the check that fails a run whose step passes an input
// the real action does not declare. Plain Node, no dependencies: act runs these with the `node` on
// PATH. The test copies this file beside each action's main.mjs, with the action's declared
// inputs in inputs.json (read from its action.yml).
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The runner's name for an input's variable: INPUT_ + the name upper-cased, other characters than A-Z 0-9 - as _. */
export function inputVariable(name) {
  return `INPUT_${name.toUpperCase().replace(/[^A-Z0-9-]/g, '_')}`;
}

/** The action's declared inputs (inputs.json beside this file). */
export function declaredInputs(actionDir) {
  return JSON.parse(readFileSync(join(actionDir, 'inputs.json'), 'utf8'));
}

/** INPUT_* variables that name no declared input: what the step passed that the real action does not take. */
export function undeclaredInputs(env, declared) {
  const known = new Set(declared.map(inputVariable));
  return Object.keys(env).filter((k) => k.startsWith('INPUT_') && !known.has(k)).map((k) => k.slice(6).toLowerCase()).sort();
}

export function input(name) {
  return (process.env[inputVariable(name)] ?? '').trim();
}

export function booleanInput(name) {
  const v = input(name);
  if (['true', 'True', 'TRUE', ''].includes(v)) return v !== '';
  if (['false', 'False', 'FALSE'].includes(v)) return false;
  throw new Error(`input ${name}: "${v}" is not a boolean (true or false)`);
}

export function setOutput(name, value) {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) throw new Error('GITHUB_OUTPUT is not set: not run by a runner');
  const delimiter = `ghadelimiter_${Math.random().toString(36).slice(2)}`;
  appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`);
}

export function addPath(dir) {
  const file = process.env.GITHUB_PATH;
  if (!file) throw new Error('GITHUB_PATH is not set: not run by a runner');
  appendFileSync(file, `${dir}\n`);
}

export function info(message) {
  process.stdout.write(`${message}\n`);
}

/**
 * Runs an action's main: first the undeclared-input check, then `fn`; an error fails the step
 * with `::error::` and exit 1, as a real action does. `what` names the stand-in in messages.
 */
export async function runAction(metaUrl, what, fn) {
  const dir = dirname(fileURLToPath(metaUrl));
  try {
    const extra = undeclaredInputs(process.env, declaredInputs(dir));
    if (extra.length > 0) {
      throw new Error(`${what} does not take the input(s) ${extra.join(', ')} (the real action does not declare them; see its action.yml)`);
    }
    await fn();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    process.stdout.write(`::error::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}\n`);
    process.exitCode = 1;
  }
}

/**
 * The folder-backed artifact store the upload/download stand-ins share:
 * $DEVPKG_STANDIN_ARTIFACTS/<owner>/<repo>/<run-id>/<artifact name>/ holds an artifact's files
 * (and .artifact.json beside them: its id and digest).
 */
export function runStore(repository, runId) {
  const root = process.env.DEVPKG_STANDIN_ARTIFACTS;
  if (!root) throw new Error('DEVPKG_STANDIN_ARTIFACTS is not set: the artifact stand-ins need a store folder');
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository)) throw new Error(`repository "${repository}" is not OWNER/NAME`);
  if (!/^\d+$/.test(runId)) throw new Error(`run-id "${runId}" is not a number`);
  return join(root, repository, runId);
}

/** A glob over names (`*` and `?` within a name, `**` across /) as a RegExp. Pure. */
export function globRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Artifact names the real upload refuses: empty, or with " : < > | * ? \ / or CR/LF. */
export function badArtifactName(name) {
  return name === '' || /["':<>|*?\\/\r\n]/.test(name);
}

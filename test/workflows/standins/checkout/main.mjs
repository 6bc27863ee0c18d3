// Stand-in for actions/checkout: see action.yml.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { booleanInput, info, input, runAction, setOutput } from './common.mjs';

const git = (cwd, ...args) => execFileSync('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

await runAction(import.meta.url, 'the actions/checkout stand-in', async () => {
  const workspace = process.env.GITHUB_WORKSPACE;
  if (!workspace) throw new Error('GITHUB_WORKSPACE is not set');
  const repository = input('repository') || process.env.GITHUB_REPOSITORY;
  const known = JSON.parse(process.env.DEVPKG_STANDIN_REPOSITORIES || '{}');
  const source = known[repository];
  if (!source) throw new Error(`repository ${repository} is not one the stand-in serves (DEVPKG_STANDIN_REPOSITORIES has: ${Object.keys(known).join(', ') || 'none'})`);
  if (input('sparse-checkout')) throw new Error('sparse-checkout is not implemented by the stand-in');
  if (booleanInput('lfs')) throw new Error('lfs is not implemented by the stand-in');
  if (!['', 'false'].includes(input('submodules'))) throw new Error('submodules is not implemented by the stand-in');
  const depth = Number(input('fetch-depth') || '1');
  if (!Number.isInteger(depth) || depth < 0) throw new Error(`fetch-depth "${input('fetch-depth')}" is not a whole number`);
  const path = input('path');
  const target = resolve(workspace, path);
  const inside = relative(workspace, target);
  if (inside.startsWith('..') || isAbsolute(inside)) throw new Error(`path ${path} is outside the workspace`);

  // The ref: as given, else the event's commit for the workflow's own repository, else the default branch.
  let ref = input('ref');
  if (!ref && repository === process.env.GITHUB_REPOSITORY) ref = process.env.GITHUB_SHA ?? '';
  const commit = git(source, 'rev-parse', '--verify', '--quiet', `${ref || 'HEAD'}^{commit}`);

  // Matrix legs on a host runner share the workspace: a folder already at that commit is reused,
  // and a fresh one is cloned beside it and renamed into place (never half-written).
  if (existsSync(join(target, '.git')) && git(target, 'rev-parse', 'HEAD') === commit && !git(target, 'status', '--porcelain')) {
    info(`${repository} is already checked out at ${commit} in ${path || '.'}`);
  } else {
    if (existsSync(target) && path && booleanInput('clean')) rmSync(target, { recursive: true, force: true });
    const tmp = `${target}.checkout-${process.pid}`;
    mkdirSync(dirname(tmp), { recursive: true });
    // git init + fetch of the commit (the source's upload-pack allows any SHA, as GitHub does).
    mkdirSync(tmp, { recursive: true });
    git(tmp, 'init', '--quiet');
    git(tmp, 'remote', 'add', 'origin', `file://${source}`);
    const fetch = ['fetch', '--quiet', '--upload-pack', 'git -c uploadpack.allowAnySHA1InWant=true upload-pack'];
    if (depth > 0) git(tmp, ...fetch, '--depth', String(depth), 'origin', commit);
    else git(tmp, ...fetch, '--tags', 'origin', '+refs/heads/*:refs/remotes/origin/*', commit);
    git(tmp, 'checkout', '--quiet', '--detach', commit);
    try {
      renameSync(tmp, target);
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      if (!(existsSync(join(target, '.git')) && git(target, 'rev-parse', 'HEAD') === commit)) throw err;
    }
    info(`checked out ${repository} at ${commit} into ${path || '.'}`);
  }
  setOutput('ref', ref || git(source, 'symbolic-ref', '--quiet', 'HEAD'));
  setOutput('commit', commit);
});

// Stand-in for actions/setup-node: see action.yml.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { addPath, info, input, runAction, setOutput } from './common.mjs';

await runAction(import.meta.url, 'the actions/setup-node stand-in', async () => {
  let wanted = input('node-version');
  const file = input('node-version-file');
  if (!wanted && file) wanted = readFileSync(resolve(process.env.GITHUB_WORKSPACE ?? '.', file), 'utf8').trim();
  if (input('registry-url')) throw new Error('registry-url is not implemented by the stand-in');
  const arch = input('architecture');
  if (arch && arch !== 'x64') throw new Error(`architecture ${arch}: the stand-in has x64 only`);
  const cache = input('cache');
  if (cache && !['npm', 'yarn', 'pnpm'].includes(cache)) throw new Error(`Caching for '${cache}' is not supported`);
  const nodes = JSON.parse(process.env.DEVPKG_STANDIN_NODES || '{}');
  const major = wanted.replace(/^v/, '').split('.')[0];
  const node = nodes[major];
  if (!wanted) throw new Error('node-version (or node-version-file) is required by the stand-in: it has no default Node to pick');
  if (!node) throw new Error(`Node ${wanted} is not one the stand-in has (DEVPKG_STANDIN_NODES: ${Object.keys(nodes).join(', ') || 'none'})`);
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  if (wanted.split('.').length === 3 && version !== `v${wanted.replace(/^v/, '')}`) throw new Error(`Node ${wanted} is not installed (the stand-in has ${version})`);
  addPath(dirname(node));
  info(`Node ${version} (${node}) is first on PATH${cache ? `; cache: ${cache} is not kept by the stand-in` : ''}`);
  setOutput('node-version', version);
  setOutput('cache-hit', 'false');
});

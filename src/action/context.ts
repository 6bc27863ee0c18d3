import { readFileSync } from 'node:fs';
import { DevpkgError } from '../errors.js';

/** What devpkg needs from the GitHub run, read from the environment and the event file. */
export interface GithubContext {
  eventName: string;
  event: Record<string, unknown>;
  sha: string;
  ref: string;
  owner: string;
  repo: string;
  runId: string;
  runNumber: number;
  runAttempt: number;
  serverUrl: string;
  apiUrl: string;
  workspace: string;
  /** The pull request number, on pull_request(_target) events. */
  prNumber?: number;
  /** pull_request: base and head SHAs; push: before and after. */
  baseSha?: string;
  headSha?: string;
  /** A run outside GitHub Actions (the CLI): there is no run page to link to. */
  local?: boolean;
}

export function readGithubContext(env: NodeJS.ProcessEnv): GithubContext {
  const path = env.GITHUB_EVENT_PATH;
  let event: Record<string, unknown> = {};
  if (path) {
    try {
      event = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new DevpkgError(`GITHUB_EVENT_PATH ${path}: cannot read the event file: ${(err as Error).message}`);
    }
  }
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const eventName = env.GITHUB_EVENT_NAME ?? '';
  const pr = event.pull_request as { number?: number; base?: { sha?: string }; head?: { sha?: string } } | undefined;
  let baseSha: string | undefined;
  let headSha: string | undefined;
  if (pr) {
    baseSha = pr.base?.sha;
    headSha = pr.head?.sha;
  } else if (eventName === 'push') {
    const before = event.before as string | undefined;
    // A new branch has before = 000...0: there is no base to diff against.
    baseSha = before && !/^0+$/.test(before) ? before : undefined;
    headSha = (event.after as string | undefined) ?? env.GITHUB_SHA;
  }
  return {
    eventName,
    event,
    sha: env.GITHUB_SHA ?? '',
    ref: env.GITHUB_REF ?? '',
    owner,
    repo,
    runId: env.GITHUB_RUN_ID ?? '0',
    runNumber: Number(env.GITHUB_RUN_NUMBER ?? '0') || 0,
    runAttempt: Number(env.GITHUB_RUN_ATTEMPT ?? '1') || 1,
    serverUrl: env.GITHUB_SERVER_URL ?? 'https://github.com',
    apiUrl: env.GITHUB_API_URL ?? 'https://api.github.com',
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
    prNumber: pr?.number ?? (event.number as number | undefined),
    baseSha,
    headSha,
  };
}

/** The run's page on GitHub; '' for a local run, which has none. */
export function runUrl(ctx: GithubContext): string {
  if (ctx.local) return '';
  return `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}/actions/runs/${ctx.runId}`;
}

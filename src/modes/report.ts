/**
 * mode: report. Posts results that other jobs gathered: matrix legs of the same workflow, or a
 * fork pull request's run seen from a privileged `workflow_run` job. The results come from
 * artifacts (results-path); this mode never checks out or runs the pull request's code.
 */
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { collectResults, type CollectedResults } from '../report/collect.js';
import { createOctokit, type GitHubClient } from '../report/comment.js';
import { publishReport } from '../report/publish.js';
import type { ModeContext } from '../pipeline/context.js';
import { runUrl } from '../action/context.js';

export interface ReportDeps {
  octokit?: GitHubClient;
  now?: () => Date;
}

interface WorkflowRunEvent {
  id?: number;
  head_sha?: string;
  head_branch?: string;
  head_repository?: { full_name?: string; owner?: { login?: string } };
  pull_requests?: Array<{ number?: number }>;
}

/**
 * The open pull request whose head is the run's branch and commit, asked of GitHub: for a fork's
 * run whose artifact names none (it did not parse), the event is all there is to go on.
 */
async function pullRequestOfHead(ctx: ModeContext, run: WorkflowRunEvent, octokit: GitHubClient): Promise<number | undefined> {
  const { github, host } = ctx;
  const owner = run.head_repository?.owner?.login ?? run.head_repository?.full_name?.split('/')[0];
  if (!owner || !run.head_branch || !run.head_sha) {
    host.info('the results name no pull request, and the workflow_run event names no head branch: no comment');
    return undefined;
  }
  try {
    const { data } = await octokit.rest.pulls.list({ owner: github.owner, repo: github.repo, head: `${owner}:${run.head_branch}`, state: 'open', per_page: 10 });
    const match = data.filter((p) => p.head.sha === run.head_sha).map((p) => p.number);
    if (match.length === 1) return match[0];
    host.warning(`the results name no pull request, and ${match.length} open pull requests have head ${owner}:${run.head_branch} at ${run.head_sha.slice(0, 12)}: no comment`);
  } catch (err) {
    host.warning(`cannot look up the pull request of ${owner}:${run.head_branch}: ${(err as Error).message}; no comment`);
  }
  return undefined;
}

/** The page of the run whose artifacts these are: the triggering run of a workflow_run, else this run. */
function sourceRunUrl(ctx: ModeContext): string | undefined {
  const { github } = ctx;
  const id = github.eventName === 'workflow_run' ? (github.event.workflow_run as WorkflowRunEvent | undefined)?.id : undefined;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return `${github.serverUrl}/${github.owner}/${github.repo}/actions/runs/${id}`;
  return github.local ? undefined : runUrl(github);
}

/**
 * The pull request to comment on. On pull_request events, the event's. On workflow_run, the
 * one GitHub names in the event (same-repository pull requests), or else the one the artifact
 * names (fork pull requests, where GitHub leaves pull_requests empty) after checking that this
 * pull request's head is the commit the triggering run tested: an artifact from a fork's run is
 * written by the fork's code and could name any pull request.
 */
export async function resolvePullRequest(
  ctx: ModeContext,
  collected: CollectedResults,
  client: () => Promise<GitHubClient | undefined>,
): Promise<number | undefined> {
  const { github, host } = ctx;
  if (github.prNumber !== undefined) return github.prNumber;
  const claimed = [...new Set(collected.docs.map((d) => d.doc.prNumber).filter((n): n is number => n !== undefined))];
  if (github.eventName !== 'workflow_run') {
    if (claimed.length > 0) host.info(`results name pull request #${claimed.join(', #')}, but a ${github.eventName || 'local'} event cannot vouch for it: no comment`);
    return undefined;
  }
  const run = (github.event.workflow_run ?? {}) as WorkflowRunEvent;
  const named = (run.pull_requests ?? []).map((p) => p.number).filter((n): n is number => typeof n === 'number');
  if (named.length > 0) {
    if (claimed.some((n) => !named.includes(n))) host.warning(`results name pull request #${claimed.join(', #')}; the workflow_run event names #${named.join(', #')}: using the event's`);
    return named[0];
  }
  if (claimed.length > 1) {
    host.warning(`results name several pull requests (#${claimed.join(', #')}): no comment`);
    return undefined;
  }
  if (claimed.length === 0) {
    const octokit = await client();
    return octokit ? pullRequestOfHead(ctx, run, octokit) : undefined;
  }
  const pr = claimed[0]!;
  if (!run.head_sha) {
    host.warning(`cannot check pull request #${pr}: the workflow_run event has no head_sha; no comment`);
    return undefined;
  }
  const octokit = await client();
  if (!octokit) return undefined;
  try {
    const { data } = await octokit.rest.pulls.get({ owner: github.owner, repo: github.repo, pull_number: pr });
    if (data.head.sha !== run.head_sha) {
      host.warning(`the results name pull request #${pr}, whose head is ${data.head.sha.slice(0, 12)}, but the run that made them tested ${run.head_sha.slice(0, 12)}: no comment`);
      return undefined;
    }
  } catch (err) {
    host.warning(`cannot check pull request #${pr}: ${(err as Error).message}; no comment`);
    return undefined;
  }
  return pr;
}

export async function run(ctx: ModeContext, deps: ReportDeps = {}): Promise<void> {
  const { inputs, github, host } = ctx;
  if (!inputs.resultsPath) {
    throw new UsageError('mode report needs results-path: the folder where actions/download-artifact put the devpkg result artifacts');
  }
  const dir = resolve(inputs.resultsPath);
  const collected = await collectResults(dir, { repository: `${github.owner}/${github.repo}`, serverUrl: github.serverUrl });
  for (const p of collected.problems) host.warning(`results: ${p}`);
  host.info(`found ${collected.docs.length} results file(s) with ${collected.entries.length} package result(s) under ${dir}`);
  // Cleaned values only (collect.ts): one line each, no workflow command, no control character.
  for (const { result: r } of collected.entries) host.info(`  ${r.name} ${r.version} (${r.mode}): ${r.verdict}`);
  if (collected.unreadable.length > 0) {
    host.error(`${collected.unreadable.length} results file(s) under ${dir} could not be read: the report says so and the result is failure (${collected.unreadable.map((u) => u.file).join(', ')})`);
  }

  let octokit = deps.octokit;
  const client = async (): Promise<GitHubClient | undefined> => {
    if (!octokit && inputs.githubToken) {
      octokit = await createOctokit(inputs.githubToken, github.apiUrl, { warning: (m) => host.warning(m), info: (m) => host.info(m) });
    }
    if (!octokit) host.warning('no github-token: cannot comment');
    return octokit;
  };

  let prNumber: number | undefined;
  if (collected.docs.length === 0 && collected.unreadable.length === 0) {
    // An empty report would replace a useful comment: say so in the log and summary only.
    host.warning(`no results.json under ${dir}: nothing to post`);
  } else if (inputs.comment) {
    prNumber = await resolvePullRequest(ctx, collected, client);
  }
  await publishReport({
    results: collected.entries.map((e) => e.result),
    entries: collected.entries,
    ctx,
    octokit: prNumber !== undefined ? await client() : undefined,
    prNumber: prNumber ?? null,
    now: deps.now,
    unreadable: collected.unreadable,
    sourceRunUrl: sourceRunUrl(ctx),
    cuts: collected.cuts,
  });
}

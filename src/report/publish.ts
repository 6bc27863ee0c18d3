/**
 * publishReport: what every mode does with its results. Outputs `result` and `results`, the
 * results folder (named in the `results-dir` output; the workflow uploads it with
 * actions/upload-artifact under `artifact-name`), the job summary, and the sticky pull
 * request comment. Publishing never changes a verdict: a comment that cannot be posted (a fork
 * pull request's read-only token answers 403) is a warning, and the summary still has the report.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ActionHost } from '../action/host.js';
import { runUrl as runUrlOf, type GithubContext } from '../action/context.js';
import { errorMessage } from '../errors.js';
import type { Mode, PlannedPackage } from '../results.js';
import { RESULTS_SCHEMA, writeResultsFolder, type ResultsDocument } from './artifact.js';
import { createOctokit, marker, normalizeHeader, upsertStickyComment, type GitHubClient, type StickyOutcome } from './comment.js';
import { GITHUB_COMMENT_LIMIT, overallResult, renderReport, type OverallResult, type ReportEntry, type ReportInput } from './render.js';

/** The settings the report reads (the action's inputs of the same names satisfy it). */
export interface ReportSettings {
  mode: Mode;
  /** The token for the pull request comment. */
  githubToken: string;
  /** Whether to keep a sticky comment on the pull request. */
  comment: boolean;
  commentHeader: string;
  artifactName: string;
}

/** The parts of a ModeContext that publishing reads. */
export interface PublishContext {
  inputs: ReportSettings;
  github: GithubContext;
  host: ActionHost;
  env: NodeJS.ProcessEnv;
  /** Aborted when the runner cancelled the job (SIGINT/SIGTERM): the report is kept, nothing is posted. */
  signal?: AbortSignal;
}

export interface PublishOptions {
  /** This run's results. Plan mode passes PlannedPackage (verdict 'planned', with `plan`). */
  results: PlannedPackage[];
  ctx: PublishContext;
  /**
   * Results with the run and artifact they came from (report mode, which merges other jobs'
   * results). When given, `results` should hold the same results.
   */
  entries?: ReportEntry[];
  /** The client for the comment; default: an Octokit with retry and throttling for github-token and GITHUB_API_URL. */
  octokit?: GitHubClient;
  /** The results folder; default $RUNNER_TEMP/devpkg-<artifact-name>. */
  resultsDir?: string;
  /** The pull request to comment on; default: the event's. null: do not comment. */
  prNumber?: number | null;
  now?: () => Date;
  /** No package in play: why, in words (the range diffed, files changed and ignored, the scope). */
  nothing?: string[];
  /** Report mode: results files it refused. Any makes the result `failure` and the report an error. */
  unreadable?: ReportInput['unreadable'];
  /** Report mode: the run the refused files came from. */
  sourceRunUrl?: string;
  /** Report mode: what was cut while reading the results. */
  cuts?: string[];
}

export interface PublishOutcome {
  result: OverallResult;
  /** The report as written to the summary (the comment is the same text after its marker). */
  markdown: string;
  trimmed: string[];
  resultsDir: string;
  /** The files written into resultsDir; empty when the folder could not be written. */
  files: string[];
  comment?: StickyOutcome;
  /** Why there is no comment, when one was wanted. */
  commentSkipped?: string;
}

function isForbidden(err: unknown): boolean {
  return (err as { status?: number }).status === 403;
}

/**
 * `steps.<id>` as the workflow names this step: GitHub sets GITHUB_ACTION to the step's id, or
 * to a generated `__owner_repo`-like name when the step has none.
 */
export function stepRef(env: NodeJS.ProcessEnv): string {
  const id = env.GITHUB_ACTION ?? '';
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(id) && !id.startsWith('__') ? `steps.${id}` : 'steps.<id>';
}

export async function publishReport(opts: PublishOptions): Promise<PublishOutcome> {
  const { ctx, results } = opts;
  const { inputs, github, host } = ctx;
  const now = (opts.now ?? (() => new Date()))();
  const result = opts.unreadable?.length ? 'failure' : overallResult(results);
  host.setOutput('result', result);

  const runUrl = runUrlOf(github);
  const header = normalizeHeader(inputs.commentHeader);
  const prNumber = opts.prNumber === null ? undefined : (opts.prNumber ?? github.prNumber);
  const resultsDir =
    opts.resultsDir ?? join(ctx.env.RUNNER_TEMP || tmpdir(), `devpkg-${inputs.artifactName.replace(/[^A-Za-z0-9._-]+/g, '_')}`);

  // The artifact is linked by name on the run's page (<run url>#artifacts): the workflow
  // uploads it after this step, so there is no artifact id to link to yet.
  // A local run has no run page and no artifact: its report names the results folder instead.
  const entries: ReportEntry[] =
    opts.entries ?? results.map((r) => (github.local ? { result: r, resultsDir } : { result: r, runUrl, artifactName: inputs.artifactName }));
  // Room for the marker line the comment carries ahead of the report.
  const limit = GITHUB_COMMENT_LIMIT - marker(header).length - 1;
  const rendered = renderReport(
    {
      header,
      entries,
      runUrl: runUrl || undefined,
      runLabel: `run ${github.runNumber || github.runId}${github.runAttempt > 1 ? ` (attempt ${github.runAttempt})` : ''}`,
      commit: github.headSha ?? (github.sha || undefined),
      generatedAt: now.toISOString(),
      ...(opts.nothing ? { nothing: opts.nothing } : {}),
      ...(opts.unreadable?.length ? { unreadable: opts.unreadable, sourceRunUrl: opts.sourceRunUrl } : {}),
      ...(opts.cuts?.length ? { cuts: opts.cuts } : {}),
    },
    limit,
  );

  // The folder first: it is what the artifact holds, and the local record without one.
  const doc: ResultsDocument = {
    schema: RESULTS_SCHEMA,
    repository: `${github.owner}/${github.repo}`,
    prNumber,
    headSha: github.headSha,
    runId: github.runId,
    runAttempt: github.runAttempt,
    runUrl,
    artifactName: inputs.artifactName,
    commentHeader: header,
    mode: inputs.mode,
    result,
    createdAt: now.toISOString(),
    results,
  };
  let files: string[] = [];
  // The results output names the diagnostics' copy in the results folder when there is one.
  let lasting: typeof results = results;
  try {
    ({ files, lasting } = await writeResultsFolder(resultsDir, doc, rendered.markdown, (m) => host.warning(m)));
    // Only a folder that exists: an upload step guarded by `results-dir != ''` then skips.
    host.setOutput('results-dir', resultsDir);
    if (!github.local) host.info(`results in ${resultsDir} (upload it with actions/upload-artifact: path: \${{ ${stepRef(ctx.env)}.outputs.results-dir }})`);
  } catch (err) {
    host.warning(`cannot write the results folder ${resultsDir}: ${errorMessage(err)}`);
  }
  host.setOutput('results', JSON.stringify(lasting));
  for (const t of rendered.trimmed) host.warning(`the report was shortened: ${t}`);

  try {
    await host.summary(rendered.markdown);
  } catch (err) {
    host.warning(`cannot write the job summary: ${errorMessage(err)}`);
  }

  const outcome: PublishOutcome = { result, markdown: rendered.markdown, trimmed: rendered.trimmed, resultsDir, files };
  if (!inputs.comment) return outcome;
  // A cancelled run posts nothing: the run that replaced it may own the sticky comment already,
  // and partial results would overwrite its report (the workflows guard their steps with
  // !cancelled() for the same reason).
  if (ctx.signal?.aborted) {
    outcome.commentSkipped = 'the run was cancelled';
    host.info('the run was cancelled: no pull request comment (a newer run may own it); the report is in the job summary and the results folder');
    return outcome;
  }
  if (prNumber === undefined) {
    outcome.commentSkipped = 'not a pull request';
    return outcome;
  }
  if (!opts.octokit && !inputs.githubToken) {
    outcome.commentSkipped = 'no github-token';
    host.warning(`no github-token: not commenting on pull request #${prNumber}; the report is in the job summary`);
    return outcome;
  }
  try {
    const octokit =
      opts.octokit ?? (await createOctokit(inputs.githubToken, github.apiUrl, { warning: (m) => host.warning(m), info: (m) => host.info(m) }));
    const target = { owner: github.owner, repo: github.repo, issueNumber: prNumber, header };
    outcome.comment = await upsertStickyComment(octokit, target, rendered.markdown);
    const extra = outcome.comment.deleted.length ? ` (removed ${outcome.comment.deleted.length} duplicate)` : '';
    host.info(`devpkg comment ${outcome.comment.action} on pull request #${prNumber}: ${outcome.comment.url ?? outcome.comment.id}${extra}`);
  } catch (err) {
    if (isForbidden(err)) {
      outcome.commentSkipped = 'forbidden';
      host.warning(
        `cannot comment on pull request #${prNumber}: GitHub answered 403 (${errorMessage(err)}). ` +
          'The token is read-only here, as on pull requests from forks; the report is in the job summary. ' +
          'To comment on fork pull requests, upload the results and post them from a workflow_run job with ' +
          '`mode: report` (see examples/workflows/devpkg-fork-report.yml).',
      );
    } else {
      outcome.commentSkipped = 'error';
      host.warning(`cannot comment on pull request #${prNumber}: ${errorMessage(err)}; the report is in the job summary`);
    }
  }
  return outcome;
}

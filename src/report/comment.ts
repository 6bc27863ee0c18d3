/**
 * The sticky pull request comment: one per comment-header, found by a hidden marker, through
 * the REST issue-comments endpoints only (they exist on GitHub Enterprise Server too). The
 * Octokit is a parameter, not built here, so tests hand in one pointed at a stand-in server.
 */
import type { getOctokit } from '@actions/github';

export type GitHubClient = ReturnType<typeof getOctokit>;

export interface StickyTarget {
  owner: string;
  repo: string;
  issueNumber: number;
  /** The comment-header input; one sticky comment per header. */
  header: string;
}

export interface StickyOutcome {
  action: 'created' | 'updated';
  id: number;
  url?: string;
  /** Duplicate marker comments removed (left by an earlier race or a crashed run). */
  deleted: number[];
}

/** A header becomes part of an HTML comment: keep it to characters that cannot end one. */
export function normalizeHeader(header: string): string {
  return header.trim().replace(/[^A-Za-z0-9._/-]+/g, '-') || 'devpkg';
}

export function marker(header: string): string {
  return `<!-- devpkg:${normalizeHeader(header)} -->`;
}

/** The comment body: the marker on its own first line, then the report. */
export function withMarker(header: string, markdown: string): string {
  return `${marker(header)}\n${markdown}`;
}

interface Comment {
  id: number;
  body?: string;
  html_url?: string;
}

async function markerComments(octokit: GitHubClient, t: StickyTarget): Promise<Comment[]> {
  const all = await octokit.paginate(octokit.rest.issues.listComments, {
    owner: t.owner,
    repo: t.repo,
    issue_number: t.issueNumber,
    per_page: 100,
  });
  const m = marker(t.header);
  return all.filter((c) => (c.body ?? '').startsWith(m)).sort((a, b) => a.id - b.id);
}

async function deleteQuietly(octokit: GitHubClient, t: StickyTarget, id: number): Promise<boolean> {
  try {
    await octokit.rest.issues.deleteComment({ owner: t.owner, repo: t.repo, comment_id: id });
    return true;
  } catch (err) {
    // Another run deleted it first: that is the outcome we wanted.
    if ((err as { status?: number }).status === 404) return false;
    throw err;
  }
}

/**
 * Creates the comment, or updates the one that carries our marker. Two runs racing converge
 * on one comment: after creating, we list again and, when more than one marker comment exists,
 * keep the oldest (lowest id), give it our body and delete the rest. Both racers pick the same
 * survivor, so whichever finishes last leaves exactly one.
 */
export async function upsertStickyComment(octokit: GitHubClient, t: StickyTarget, markdown: string): Promise<StickyOutcome> {
  const body = withMarker(t.header, markdown);
  const base = { owner: t.owner, repo: t.repo };
  const existing = await markerComments(octokit, t);
  const deleted: number[] = [];
  if (existing.length > 0) {
    const [keep, ...extra] = existing;
    const res = await octokit.rest.issues.updateComment({ ...base, comment_id: keep!.id, body });
    for (const c of extra) if (await deleteQuietly(octokit, t, c.id)) deleted.push(c.id);
    return { action: 'updated', id: keep!.id, url: res.data.html_url, deleted };
  }
  const created = await octokit.rest.issues.createComment({ ...base, issue_number: t.issueNumber, body });
  const after = await markerComments(octokit, t);
  const keep = after[0];
  if (!keep || after.length === 1) {
    return { action: 'created', id: created.data.id, url: created.data.html_url, deleted };
  }
  let url = created.data.html_url;
  if (keep.id !== created.data.id) {
    const res = await octokit.rest.issues.updateComment({ ...base, comment_id: keep.id, body });
    url = res.data.html_url;
  }
  for (const c of after.slice(1)) if (await deleteQuietly(octokit, t, c.id)) deleted.push(c.id);
  return { action: keep.id === created.data.id ? 'created' : 'updated', id: keep.id, url, deleted };
}

export interface OctokitLog {
  warning(message: string): void;
  info(message: string): void;
}

/**
 * An Octokit with retry and throttling, pointed at `baseUrl` (GITHUB_API_URL, so GitHub
 * Enterprise Server works). Loaded on demand: plan mode without a pull request never pays for it.
 */
export async function createOctokit(
  token: string,
  baseUrl: string,
  log: OctokitLog,
  extra: Record<string, unknown> = {},
): Promise<GitHubClient> {
  const [{ getOctokit }, { retry }, { throttling }] = await Promise.all([
    import('@actions/github'),
    import('@octokit/plugin-retry'),
    import('@octokit/plugin-throttling'),
  ]);
  const retryLimited = (what: string) => (retryAfter: number, options: { method?: string; url?: string }, _o: unknown, retryCount: number): boolean => {
    log.warning(`GitHub ${what} on ${options.method ?? ''} ${options.url ?? ''}; retrying after ${retryAfter}s`);
    return retryCount < 2;
  };
  return getOctokit(
    token,
    {
      baseUrl: baseUrl.replace(/\/+$/, ''),
      throttle: { onRateLimit: retryLimited('rate limit'), onSecondaryRateLimit: retryLimited('secondary rate limit') },
      ...extra,
    },
    retry,
    throttling,
  );
}

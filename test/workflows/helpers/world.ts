// What a workflow run of the tier happens in: a scratch folder, act, Node 24, the stand-in actions,
// the artifact store, devpkg itself as a git repository at a commit (`owner/devpkg@<sha>`), a
// consumer repository made from examples/tce-packages with our example workflows in it, the
// GitHub API stand-in, and the events a user's pushes and clicks produce.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GitHubStandin } from '../../support/github-standin.js';
import { actBinary, DEVPKG_REPOSITORY, devpkgRepository, git, node24, removeFolder, repoRoot, runAct, scratchFolder, standinActions, type ActOptions, type ActRun } from './act.js';

export const PR = 7;

export interface World {
  scratch: string;
  act: string;
  nodes: Record<string, string>;
  standinFlags: string[];
  artifacts: string;
  devpkgDir: string;
  devpkgSha: string;
  standin: GitHubStandin;
  nextRunId: () => number;
  close: () => Promise<void>;
}

/**
 * Sets up a world whose GitHub stand-in serves OWNER/REPO. `mutateDevpkg` edits the devpkg
 * repository before its commit (the broken-workflow tests).
 */
export async function makeWorld(owner: string, repo: string, prefix: string, mutateDevpkg?: (dir: string) => void): Promise<World> {
  const scratch = scratchFolder(prefix);
  try {
    const act = actBinary();
    const nodes = { '24': node24(), [process.versions.node.split('.')[0]!]: process.execPath };
    const standinFlags = standinActions(join(scratch, 'standins'));
    const devpkgDir = join(scratch, 'devpkg');
    const devpkgSha = devpkgRepository(devpkgDir, mutateDevpkg);
    const standin = await new GitHubStandin(owner, repo).start();
    let runId = 100;
    return {
      scratch,
      act,
      nodes,
      standinFlags,
      artifacts: join(scratch, 'artifacts'),
      devpkgDir,
      devpkgSha,
      standin,
      nextRunId: () => ++runId,
      close: async () => {
        await standin.stop();
        removeFolder(scratch);
      },
    };
  } catch (err) {
    removeFolder(scratch);
    throw err;
  }
}

/** Runs a workflow in `workdir` with the world's stand-ins; DEVPKG_REPOSITORY@<sha> is the world's devpkg. */
export function runIn(
  w: World,
  workdir: string,
  workflow: string,
  event: string,
  payload: Record<string, unknown>,
  more: Partial<ActOptions> & { runId?: number; repositories?: Record<string, string> } = {},
): Promise<ActRun> {
  const runId = more.runId ?? w.nextRunId();
  return runAct({
    act: w.act,
    workdir,
    workflow,
    event,
    payload,
    runId,
    apiUrl: w.standin.url,
    repositories: { [DEVPKG_REPOSITORY]: w.devpkgDir, ...more.repositories },
    localRepositories: ['--local-repository', `${DEVPKG_REPOSITORY}@${w.devpkgSha}=${w.devpkgDir}`],
    standinFlags: w.standinFlags,
    artifacts: w.artifacts,
    nodes: w.nodes,
    scratch: join(w.scratch, 'act'),
    ...more,
  });
}

/** Artifacts a run uploaded: name -> the files in it (relative paths, sorted). */
export function artifactsOf(w: World, repository: string, runId: number): Record<string, string[]> {
  const dir = join(w.artifacts, repository, String(runId));
  if (!existsSync(dir)) return {};
  const out: Record<string, string[]> = {};
  for (const name of readdirSync(dir).filter((n) => existsSync(join(dir, `${n}.artifact.json`)))) {
    const files: string[] = [];
    const walk = (d: string, pre: string) => {
      for (const e of readdirSync(join(dir, name, d), { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name), `${pre}${e.name}/`);
        else files.push(`${pre}${e.name}`);
      }
    };
    walk('.', '');
    out[name] = files.sort();
  }
  return out;
}

export function readArtifactFile(w: World, repository: string, runId: number, name: string, file: string): string {
  return readFileSync(join(w.artifacts, repository, String(runId), name, file), 'utf8');
}

/**
 * A consumer repository (example/tce) made from examples/tce-packages, with the example workflows
 * in .github/workflows (`<sha>` replaced by devpkg's commit, `OWNER/devpkg` by DEVPKG_REPOSITORY) and edited by `editWorkflow` (the
 * machine's kind inputs). Branch main is the base; each change is a branch off it with one commit.
 */
export interface Consumer {
  dir: string;
  base: string;
  /** branch name -> head commit */
  heads: Record<string, string>;
}

export function makeConsumer(w: World, editWorkflow: (name: string, text: string) => string = (_n, t) => t): Consumer {
  const dir = join(w.scratch, 'tce');
  cpSync(join(repoRoot, 'examples', 'tce-packages'), dir, { recursive: true });
  mkdirSync(join(dir, '.github', 'workflows'), { recursive: true });
  for (const f of readdirSync(join(repoRoot, 'examples', 'workflows'))) {
    const text = readFileSync(join(repoRoot, 'examples', 'workflows', f), 'utf8').replaceAll('<sha>', w.devpkgSha).replaceAll('OWNER/devpkg', DEVPKG_REPOSITORY);
    writeFileSync(join(dir, '.github', 'workflows', f), editWorkflow(f, text));
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'remote', 'add', 'origin', 'https://github.com/example/tce.git');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'packages as released');
  const base = git(dir, 'rev-parse', 'HEAD');
  const heads: Record<string, string> = {};
  const branch = (name: string, change: () => void) => {
    git(dir, 'checkout', '-q', '-b', name, base);
    change();
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', name);
    heads[name] = git(dir, 'rev-parse', 'HEAD');
  };
  const antreaValues = join(dir, 'addons/packages/antrea/1.5.3/bundle/config/values.yaml');
  branch('one-package', () => writeFileSync(antreaValues, readFileSync(antreaValues, 'utf8').replace(/^infraProvider: .*/m, 'infraProvider: devpkg-workflow-tier')));
  branch('docs-only', () => writeFileSync(join(dir, 'addons/packages/antrea/test/README.md'), 'How to test antrea, reworded.\n'));
  branch('removed-version', () => rmSync(join(dir, 'addons/packages/calico/3.22.1'), { recursive: true }));
  git(dir, 'checkout', '-q', 'main');
  return { dir, base, heads };
}

/** Checks out a branch of the consumer: act copies the work tree as it is into each job. */
export function checkout(c: Consumer, branch: string): void {
  git(c.dir, 'checkout', '-q', branch);
}

/** A pull_request event of PR #7 from `branch`; `fork` makes its head another repository. */
export function pullRequestEvent(c: Consumer, branch: string, fork = false): Record<string, unknown> {
  const headRepo = fork ? 'contributor/tce' : 'example/tce';
  return {
    action: 'synchronize',
    number: PR,
    pull_request: {
      number: PR,
      title: `${branch}`,
      state: 'open',
      html_url: `https://github.example/example/tce/pull/${PR}`,
      head: { ref: branch, sha: c.heads[branch], repo: { full_name: headRepo, fork } },
      base: { ref: 'main', sha: c.base, repo: { full_name: 'example/tce', fork: false } },
    },
    repository: { name: 'tce', full_name: 'example/tce', owner: { login: 'example' }, default_branch: 'main' },
    sender: { login: 'contributor' },
  };
}

/** The workflow_run event GitHub sends when run `runId` of workflow `name` (a pull_request run) completed. */
export function workflowRunEvent(c: Consumer, branch: string, runId: number, name: string, conclusion: string, fork = true): Record<string, unknown> {
  const headRepo = fork ? 'contributor/tce' : 'example/tce';
  return {
    action: 'completed',
    workflow_run: {
      id: runId,
      name,
      event: 'pull_request',
      status: 'completed',
      conclusion,
      head_sha: c.heads[branch],
      head_branch: branch,
      head_repository: { full_name: headRepo },
      repository: { full_name: 'example/tce' },
      pull_requests: fork ? [] : [{ number: PR, head: { sha: c.heads[branch] } }],
    },
    repository: { name: 'tce', full_name: 'example/tce', owner: { login: 'example' }, default_branch: 'main' },
    sender: { login: 'contributor' },
  };
}

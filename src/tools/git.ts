import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import path from 'node:path';
import { DevpkgError, UsageError } from '../errors.js';
import { execTool, type ExecFn, type ExecResult } from './exec.js';
import { askVersion, lastLines, requireAtLeast } from './tool.js';

/** `--deepen` needs 2.11, `rev-parse --is-shallow-repository` 2.15. */
export const MIN_GIT_VERSION: readonly [number, number] = [2, 15];

/** One entry of `git diff --name-status`: A, C, D, M, R, T, U, X (renames/copies carry oldPath). */
export interface NameStatus {
  status: string;
  path: string;
  oldPath?: string;
  /** Similarity score of a rename or copy (R100 -> 100). */
  score?: number;
}

export interface TreeEntry {
  mode: string;
  type: string;
  object: string;
  path: string;
}

// ---- argv builders (pure; tested table-style) ----

const FETCH_BASE = ['fetch', '--no-tags', '--no-recurse-submodules', '--quiet'];

export const gitArgs = {
  version: (): string[] => ['version'],
  revParse: (ref: string): string[] => ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`],
  // Without --verify rev-parse takes several revisions; the trailing `--` keeps them from being read as paths.
  revParseAll: (refs: readonly string[]): string[] => ['rev-parse', ...refs.map((r) => `${r}^{commit}`), '--'],
  mergeBase: (a: string, b: string): string[] => ['merge-base', a, b],
  // diff-tree is plumbing: user config (color, noprefix, external diff) cannot change its output.
  diffNameStatus: (from: string, to: string, paths: readonly string[] = []): string[] => [
    'diff-tree',
    '-r',
    '-z',
    '--name-status',
    '-M',
    from,
    to,
    ...(paths.length > 0 ? ['--', ...paths] : []),
  ],
  isShallow: (): string[] => ['rev-parse', '--is-shallow-repository'],
  topLevel: (dir: string): string[] => ['-C', dir, 'rev-parse', '--show-toplevel'],
  remoteUrl: (remote: string): string[] => ['remote', 'get-url', remote],
  fetchRef: (remote: string, ref: string, depth?: number): string[] => [
    ...FETCH_BASE,
    ...(depth === undefined ? [] : [`--depth=${depth}`]),
    remote,
    ref,
  ],
  fetchDeepen: (remote: string, depth: number, refs: readonly string[] = []): string[] => [
    ...FETCH_BASE,
    `--deepen=${depth}`,
    remote,
    ...refs,
  ],
  fetchUnshallow: (remote: string, refs: readonly string[] = []): string[] => [...FETCH_BASE, '--unshallow', remote, ...refs],
  lsTree: (ref: string, paths: readonly string[], opts: { recursive?: boolean; nameOnly?: boolean } = {}): string[] => [
    'ls-tree',
    '-z',
    '--full-tree',
    ...(opts.recursive ? ['-r'] : []),
    ...(opts.nameOnly ? ['--name-only'] : []),
    ref,
    '--',
    ...paths,
  ],
  show: (ref: string, path: string): string[] => ['cat-file', 'blob', `${ref}:${path}`],
  catFileBatch: (): string[] => ['cat-file', '--batch'],
  anyCommit: (): string[] => ['rev-list', '-n', '1', '--all'],
};

/**
 * Git's refusal of a repository owned by another user (containers, shared runners), reworded
 * with the command git itself suggests; undefined for any other stderr.
 */
export function dubiousOwnership(stderr: string, dir: string): DevpkgError | undefined {
  const m = /detected dubious ownership in repository at '([^'\n]*)'/.exec(stderr);
  if (!m) return undefined;
  const at = m[1] || dir;
  return new DevpkgError(
    `git refuses ${at}: the repository is owned by another user ("detected dubious ownership"); if you trust it, run: git config --global --add safe.directory ${at}`,
  );
}

/**
 * The top level of the git work tree holding `dir`, or undefined when it is in none (or git is
 * missing): where a repository's own commands (push-command) run.
 */
export async function gitTopLevel(exec: ExecFn, dir: string, gitPath = 'git'): Promise<string | undefined> {
  let r: ExecResult;
  try {
    r = await exec(gitPath, gitArgs.topLevel(dir), { allowFail: true });
  } catch {
    return undefined;
  }
  const refused = r.code === 0 ? undefined : dubiousOwnership(r.stderr, dir);
  if (refused) throw refused;
  return r.code === 0 && r.stdout.trim() ? r.stdout.trim() : undefined;
}

// ---- output parsers (pure) ----

const STATUS_LETTERS = 'ACDMRTUXB';

/** "git version 2.39.5", "git version 2.39.3 (Apple Git-146)", "git version 2.45.1.windows.1". */
export function parseGitVersion(text: string): [number, number, number] | undefined {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
}

/**
 * Parses `-z --name-status` output. Fields are NUL-terminated, so names with
 * spaces, tabs, newlines or '+' come through unquoted and intact.
 */
export function parseNameStatusZ(out: string): NameStatus[] {
  const fields = out.split('\0');
  if (fields[fields.length - 1] === '') fields.pop();
  const result: NameStatus[] = [];
  for (let i = 0; i < fields.length; ) {
    const token = fields[i++];
    const status = token.charAt(0);
    // A status letter, then (for R and C) a similarity score; charCode checks keep this hot loop cheap.
    if (status === '' || !STATUS_LETTERS.includes(status) || (token.length > 1 && !/^.\d+$/.test(token))) {
      throw new DevpkgError(`git diff: unexpected status "${token}" in --name-status output`);
    }
    const score = token.length > 1 ? Number(token.slice(1)) : undefined;
    if (status === 'R' || status === 'C') {
      const oldPath = fields[i++];
      const path = fields[i++];
      if (oldPath === undefined || path === undefined) throw new DevpkgError(`git diff: truncated ${token} entry`);
      result.push({ status, path, oldPath, score });
    } else {
      const path = fields[i++];
      if (path === undefined) throw new DevpkgError(`git diff: truncated ${token} entry`);
      result.push(score === undefined ? { status, path } : { status, path, score });
    }
  }
  return result;
}

/** Parses `ls-tree -z` (without --name-only): "<mode> SP <type> SP <object> TAB <path>" NUL. */
export function parseLsTreeZ(out: string): TreeEntry[] {
  return out
    .split('\0')
    .filter((r) => r !== '')
    .map((r) => {
      const tab = r.indexOf('\t');
      const [mode, type, object] = r.slice(0, tab).split(' ');
      return { mode, type, object, path: r.slice(tab + 1) };
    });
}

export function splitZ(out: string): string[] {
  return out.split('\0').filter((r) => r !== '');
}

function checkRef(ref: string): string {
  // A ref starting with '-' would be read as an option; git refs cannot start with one.
  if (ref === '' || ref.startsWith('-') || ref.includes('\0')) {
    throw new UsageError(`"${ref}" is not a valid git ref`);
  }
  return ref;
}

/** One answer of `git cat-file --batch`: the object's id, type and content, or undefined when it is missing. */
export interface BatchObject {
  oid: string;
  type: string;
  content: Buffer;
}

/**
 * Parses as many answers of `git cat-file --batch` as `buf` holds (pure): `<sha> <type> <size>\n<content>\n`,
 * or `<name> missing\n` / `<name> ambiguous\n`. Returns the answers and the bytes not yet complete.
 */
export function parseBatchOutput(buf: Buffer): { answers: (BatchObject | undefined)[]; rest: Buffer } {
  const answers: (BatchObject | undefined)[] = [];
  let at = 0;
  for (;;) {
    const nl = buf.indexOf(10, at);
    if (nl < 0) break;
    const header = buf.toString('utf8', at, nl);
    if (/ (missing|ambiguous)$/.test(header)) {
      answers.push(undefined);
      at = nl + 1;
      continue;
    }
    const m = /^([0-9a-f]+) (\S+) (\d+)$/.exec(header);
    if (!m) throw new DevpkgError(`git cat-file --batch: unexpected answer "${header}"`);
    const size = Number(m[3]);
    if (buf.length < nl + 1 + size + 1) break;
    answers.push({ oid: m[1]!, type: m[2]!, content: buf.subarray(nl + 1, nl + 1 + size) });
    at = nl + 1 + size + 1;
  }
  return { answers, rest: buf.subarray(at) };
}

/**
 * One `git cat-file --batch` process for a repository: spawned on the first read, requests
 * answered in the order they were written, closed by close() (and killed when node exits, so
 * none is left behind). While no request waits it holds no reference on the event loop.
 */
export class CatFileBatch {
  private child?: ChildProcessWithoutNullStreams;
  private waiting: { resolve: (o: BatchObject | undefined) => void; reject: (e: Error) => void }[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private stderr = '';
  /** How many processes this reader started (one per run unless git died). */
  started = 0;

  constructor(
    readonly repoDir: string,
    private readonly gitPath = 'git',
  ) {}

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(this.gitPath, gitArgs.catFileBatch(), { cwd: this.repoDir, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.started++;
    BATCHES.add(this);
    child.stdout.on('data', (chunk: Buffer) => {
      this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
      let parsed;
      try {
        parsed = parseBatchOutput(this.buf);
      } catch (err) {
        this.fail(err as Error);
        return;
      }
      this.buf = parsed.rest;
      for (const a of parsed.answers) this.waiting.shift()?.resolve(a);
      this.hold();
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (this.stderr += c));
    child.on('error', (err) => this.fail(new DevpkgError(`${this.gitPath}: could not start git cat-file --batch: ${err.message}`, { cause: err })));
    child.on('close', (code) => {
      if (this.child === child) this.child = undefined;
      BATCHES.delete(this);
      if (this.waiting.length > 0) {
        const why = dubiousOwnership(this.stderr, this.repoDir)?.message ?? `git cat-file --batch ended (exit ${code}) in ${this.repoDir}: ${lastLines(this.stderr, 5)}`;
        this.fail(new DevpkgError(why));
      }
    });
    child.stdin.on('error', () => undefined);
    this.child = child;
    return child;
  }

  private fail(err: Error): void {
    for (const w of this.waiting.splice(0)) w.reject(err);
    this.buf = Buffer.alloc(0);
    this.child?.kill();
    this.child = undefined;
  }

  /** Keeps node running while an answer is awaited, and not a moment longer. */
  private hold(): void {
    const c = this.child;
    if (!c) return;
    const on = this.waiting.length > 0;
    for (const s of [c.stdout, c.stdin, c.stderr] as unknown as Socket[]) (on ? s.ref : s.unref)?.call(s);
    if (on) c.ref();
    else c.unref();
  }

  /** The object NAME (`<commit>:<path>`) names; undefined when it does not exist. */
  read(name: string): Promise<BatchObject | undefined> {
    if (name.includes('\n')) return Promise.reject(new DevpkgError(`git cat-file --batch cannot read a name with a newline: ${JSON.stringify(name)}`));
    const child = this.child ?? this.start();
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.hold();
      child.stdin.write(`${name}\n`);
    });
  }

  /** Ends the process (its stdin closed: git exits) and waits for it. */
  async close(): Promise<void> {
    const c = this.child;
    if (!c) return;
    this.child = undefined;
    const closed = new Promise<void>((r) => c.once('close', () => r()));
    c.stdin.end();
    c.ref();
    await closed;
  }
}

/** The batch readers with a live process, killed when node exits. */
const BATCHES = new Set<CatFileBatch>();
let exitHook = false;
/** Per repository (and git binary): its batch reader and the listings of the commits read. */
const SHARED = new Map<string, { batch: CatFileBatch; listings: Map<string, Promise<string[]>> }>();

function sharedOf(repoDir: string, gitPath: string) {
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const b of BATCHES) (b as unknown as { child?: { kill(): void } }).child?.kill();
    });
  }
  const key = `${gitPath}\0${repoDir}`;
  let s = SHARED.get(key);
  if (!s) SHARED.set(key, (s = { batch: new CatFileBatch(repoDir, gitPath), listings: new Map() }));
  return s;
}

/** Closes every `git cat-file --batch` process of the run (the end of a run, and tests). */
export async function closeGitReaders(): Promise<void> {
  const all = [...SHARED.values()];
  SHARED.clear();
  await Promise.all(all.map((s) => s.batch.close()));
}

/** How many `git cat-file --batch` processes were started for a repository so far (tests and benches). */
export function batchProcessesStarted(repoDir: string, gitPath = 'git'): number {
  return SHARED.get(`${gitPath}\0${repoDir}`)?.batch.started ?? 0;
}

const FULL_COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** One entry of a git tree object. */
export interface TreeObjectEntry {
  mode: string;
  name: string;
  oid: string;
}

/**
 * The entries of a tree object's content (pure): `<mode> <name>\0<oid>` repeated, the oid as
 * `oidBytes` raw bytes (20 for SHA-1, 32 for SHA-256). A name that is not a plain file name
 * (empty, `.`, `..`, a slash) or not UTF-8 is refused, naming it: it cannot be written as git holds it.
 */
export function parseTreeObject(content: Buffer, oidBytes: number, where: string): TreeObjectEntry[] {
  const out: TreeObjectEntry[] = [];
  let at = 0;
  while (at < content.length) {
    const sp = content.indexOf(0x20, at);
    const nul = sp < 0 ? -1 : content.indexOf(0, sp + 1);
    if (sp < 0 || nul < 0 || nul + 1 + oidBytes > content.length) throw new DevpkgError(`git tree ${where}: malformed entry at byte ${at}`);
    const raw = content.subarray(sp + 1, nul);
    const name = raw.toString('utf8');
    if (name === '' || name === '.' || name === '..' || name.includes('/') || !Buffer.from(name, 'utf8').equals(raw)) {
      throw new DevpkgError(`git tree ${where}: the entry ${JSON.stringify(raw.toString('latin1'))} is not a file name devpkg can write; rename it in the repository`);
    }
    out.push({ mode: content.toString('latin1', at, sp), name, oid: content.toString('hex', nul + 1, nul + 1 + oidBytes) });
    at = nul + 1 + oidBytes;
  }
  return out;
}

/**
 * Writes `folder` (relative to `repoDir`, which may be a subfolder of the repository) as it is at
 * `ref` into `dest/<folder>/...`, read through the repository's one `git cat-file --batch`: no
 * process per folder or file. Files keep their executable bit, symbolic links stay links, a
 * submodule is an empty folder (as git archive leaves it). False when the folder is not a folder at
 * that ref.
 */
export async function exportTree(repoDir: string, gitPath: string, ref: string, folder: string, dest: string): Promise<boolean> {
  const batch = sharedOf(repoDir, gitPath).batch;
  const rel = path.posix.normalize(`${folder}/`).replace(/^\.\//, '').replace(/\/+$/, '');
  const top = rel === '.' ? '' : rel;
  if (top === '..' || top.startsWith('../') || path.posix.isAbsolute(top)) throw new DevpkgError(`${folder}: not a folder inside ${repoDir}`);
  const root = await batch.read(`${checkRef(ref)}:./${top}`);
  if (root?.type !== 'tree') return false;
  const oidBytes = root.oid.length / 2;
  const write = async (tree: Buffer, under: string): Promise<void> => {
    await mkdir(path.join(dest, under), { recursive: true });
    await Promise.all(
      parseTreeObject(tree, oidBytes, `${ref.slice(0, 12)}:${under || '.'}`).map(async (e) => {
        const at = under === '' ? e.name : `${under}/${e.name}`;
        if (e.mode === '160000') {
          await mkdir(path.join(dest, at));
          return;
        }
        const o = await batch.read(e.oid);
        const want = e.mode === '40000' ? 'tree' : 'blob';
        if (o?.type !== want) throw new DevpkgError(`${at} at ${ref.slice(0, 12)}: git object ${e.oid} (a ${want}) is ${o ? `a ${o.type}` : 'missing'} in ${repoDir}; fetch the commit again`);
        if (want === 'tree') return write(o.content, at);
        if (e.mode === '120000') return symlink(o.content.toString('utf8'), path.join(dest, at));
        await writeFile(path.join(dest, at), o.content, { mode: parseInt(e.mode, 8) & 0o111 ? 0o755 : 0o644 });
      }),
    );
  };
  await write(root.content, top);
  return true;
}

/**
 * The git CLI for one repository. Every call goes through the private `run`,
 * with an argv array, never a shell. `try*` methods return undefined instead of throwing.
 */
export class Git {
  private constructor(
    readonly repoDir: string,
    readonly version: [number, number, number],
    private readonly exec: ExecFn,
    private readonly gitPath: string,
  ) {}

  /** Finds git on PATH (execTool names it if missing) and checks its version. */
  static async create(repoDir: string, exec: ExecFn = execTool, gitPath = 'git'): Promise<Git> {
    const version = await askVersion(exec, gitPath, gitArgs.version(), parseGitVersion, undefined, { cwd: repoDir });
    requireAtLeast('git', version, MIN_GIT_VERSION);
    return new Git(repoDir, version, exec, gitPath);
  }

  private async run(args: string[], allowFail = false): Promise<ExecResult> {
    const r = await this.exec(this.gitPath, args, {
      cwd: this.repoDir,
      // Never wait for a credential prompt in CI.
      env: { GIT_TERMINAL_PROMPT: '0' },
      allowFail: true,
    });
    if (r.code !== 0 && /not a git repository/i.test(r.stderr)) {
      throw new DevpkgError(`${this.repoDir} is not a git repository (or any of its parents); pass the repository root`);
    }
    const refused = r.code === 0 ? undefined : dubiousOwnership(r.stderr, this.repoDir);
    if (refused) throw refused;
    if (r.code !== 0 && !allowFail) {
      throw new DevpkgError(`git ${args.join(' ')} failed (exit ${r.code}) in ${this.repoDir}: ${lastLines(r.stderr || r.stdout, 5)}`);
    }
    return r;
  }

  /** The commit a ref names; throws a DevpkgError naming the ref when it does not exist. */
  async revParse(ref: string): Promise<string> {
    const sha = await this.tryRevParse(ref);
    if (sha === undefined) {
      await this.requireCommits();
      throw new DevpkgError(`unknown git ref "${ref}" in ${this.repoDir}: no such commit`);
    }
    return sha;
  }

  /** undefined when the ref names no commit (`--verify --quiet` exits 1); git's other refusals are kept. */
  async tryRevParse(ref: string): Promise<string | undefined> {
    const r = await this.run(gitArgs.revParse(checkRef(ref)), true);
    if (r.code === 0) return r.stdout.trim();
    if (r.code === 1) return undefined;
    throw new DevpkgError(`git rev-parse ${ref} failed (exit ${r.code}) in ${this.repoDir}: ${lastLines(r.stderr || r.stdout, 5)}`);
  }

  /**
   * Throws "has no commits yet" in a repository without a single commit (a fresh `git init`),
   * where every ref, HEAD included, is unknown; callers ask this once a ref was not found.
   */
  async requireCommits(): Promise<void> {
    const r = await this.run(gitArgs.anyCommit());
    if (r.stdout.trim() === '') {
      throw new DevpkgError(`${this.repoDir} is a git repository with no commits yet: commit the packages (git add, git commit) and run devpkg again`);
    }
  }

  /** Several refs in one call; undefined when any of them does not resolve (then ask one by one). */
  async tryRevParseAll(refs: readonly string[]): Promise<string[] | undefined> {
    const r = await this.run(gitArgs.revParseAll(refs.map(checkRef)), true);
    if (r.code !== 0) return undefined;
    const shas = r.stdout.split('\n').filter((l) => /^[0-9a-f]{40,64}$/.test(l));
    return shas.length === refs.length ? shas : undefined;
  }

  async mergeBase(a: string, b: string): Promise<string> {
    const mb = await this.tryMergeBase(a, b);
    if (mb === undefined) throw new DevpkgError(`${a} and ${b} have no common ancestor in ${this.repoDir}`);
    return mb;
  }

  /** undefined when the commits exist but no merge-base is reachable (shallow or unrelated history). */
  async tryMergeBase(a: string, b: string): Promise<string | undefined> {
    const r = await this.run(gitArgs.mergeBase(checkRef(a), checkRef(b)), true);
    if (r.code === 0) return r.stdout.trim().split('\n')[0];
    if (r.code === 1) return undefined;
    throw new DevpkgError(`git merge-base ${a} ${b} failed (exit ${r.code}): ${lastLines(r.stderr, 5)}`);
  }

  /** Changed files between two commits (renames detected), optionally limited to some paths. */
  async diffNameStatus(from: string, to: string, paths: readonly string[] = []): Promise<NameStatus[]> {
    const r = await this.run(gitArgs.diffNameStatus(checkRef(from), checkRef(to), paths));
    return parseNameStatusZ(r.stdout);
  }

  async isShallow(): Promise<boolean> {
    const r = await this.run(gitArgs.isShallow());
    return r.stdout.trim() === 'true';
  }

  async remoteUrl(remote: string): Promise<string | undefined> {
    const r = await this.run(gitArgs.remoteUrl(remote), true);
    return r.code === 0 ? r.stdout.trim() : undefined;
  }

  /**
   * Fetches one ref or commit from a remote and returns the commit it resolved to.
   * Pass depth only in a shallow repository: it would make a full clone shallow.
   */
  async fetchRef(remote: string, ref: string, depth?: number): Promise<string> {
    const r = await this.run(gitArgs.fetchRef(remote, checkRef(ref), depth), true);
    if (r.code !== 0) {
      throw new DevpkgError(`git fetch ${remote} ${ref} failed (exit ${r.code}): ${lastLines(r.stderr || r.stdout, 3)}`);
    }
    return this.revParse('FETCH_HEAD');
  }

  async tryFetchRef(remote: string, ref: string, depth?: number): Promise<string | undefined> {
    const r = await this.run(gitArgs.fetchRef(remote, checkRef(ref), depth), true);
    if (r.code !== 0) return undefined;
    return this.tryRevParse('FETCH_HEAD');
  }

  /** Deepens a shallow history by `depth` commits below the current boundary (of `refs`, if given). */
  async fetchDeepen(remote: string, depth: number, refs: readonly string[] = []): Promise<void> {
    await this.run(gitArgs.fetchDeepen(remote, depth, refs.map(checkRef)));
  }

  async fetchUnshallow(remote: string, refs: readonly string[] = []): Promise<void> {
    await this.run(gitArgs.fetchUnshallow(remote, refs.map(checkRef)));
  }

  /** Entries of a tree at `ref` (paths are repository-relative); `recursive` lists files only. */
  async lsTree(ref: string, paths: readonly string[] = [], recursive = false): Promise<TreeEntry[]> {
    const r = await this.run(gitArgs.lsTree(checkRef(ref), paths, { recursive }));
    return parseLsTreeZ(r.stdout);
  }

  /**
   * Every file under the given paths at `ref`, repository-relative. A commit named by its id is
   * listed once (one `git ls-tree -r` per commit and run); other refs each time.
   */
  async listFiles(ref: string, paths: readonly string[] = []): Promise<string[]> {
    if (!FULL_COMMIT.test(ref)) {
      const r = await this.run(gitArgs.lsTree(checkRef(ref), paths, { recursive: true, nameOnly: true }));
      return splitZ(r.stdout);
    }
    const { listings } = sharedOf(this.repoDir, this.gitPath);
    let all = listings.get(ref);
    if (!all) {
      listings.set(ref, (all = this.run(gitArgs.lsTree(ref, [], { recursive: true, nameOnly: true })).then((r) => splitZ(r.stdout))));
      all.catch(() => listings.delete(ref));
    }
    const files = await all;
    const dirs = paths.map((p) => p.replace(/\/+$/, ''));
    if (dirs.length === 0 || dirs.some((d) => d === '' || d === '.')) return files;
    return files.filter((f) => dirs.some((d) => f === d || f.startsWith(`${d}/`)));
  }

  /** A file's content at `ref`. */
  async show(ref: string, file: string): Promise<string> {
    const text = await this.tryShow(ref, file);
    if (text === undefined) throw new DevpkgError(`${file} does not exist at ${ref} in ${this.repoDir}`);
    return text;
  }

  /** A file's content at `ref`, undefined when it is not there; read through the run's one `git cat-file --batch`. */
  async tryShow(ref: string, file: string): Promise<string | undefined> {
    checkRef(ref);
    if (file.includes('\n')) {
      const r = await this.run(gitArgs.show(ref, file), true);
      return r.code === 0 ? r.stdout : undefined;
    }
    const o = await sharedOf(this.repoDir, this.gitPath).batch.read(`${ref}:${file}`);
    return o?.type === 'blob' ? o.content.toString('utf8') : undefined;
  }

  /** Copies `folder` as it is at `ref` into `dest` (`dest/<folder>/...`); false when it is not a folder there (see exportTree). */
  exportFolder(ref: string, folder: string, dest: string): Promise<boolean> {
    return exportTree(this.repoDir, this.gitPath, ref, folder, dest);
  }
}

// Test support (not bundled: only tests import it): real git repositories in temp dirs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' };
const ID = ['-c', 'user.name=devpkg test', '-c', 'user.email=test@devpkg.invalid', '-c', 'commit.gpgsign=false'];

/** Temp dirs made by tests; `removeTempDirs()` in afterAll. */
const made: string[] = [];

export function tempDir(prefix = 'devpkg-detect-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

export function removeTempDirs(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', [...ID, ...args], { cwd: dir, env: ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export class TestRepo {
  constructor(readonly dir: string) {}

  static init(branch = 'main'): TestRepo {
    const dir = tempDir();
    git(dir, 'init', '-q', '-b', branch);
    return new TestRepo(dir);
  }

  /** A shallow clone of this repository over file:// (so --depth is honoured). */
  cloneShallow(branch: string, depth = 1): TestRepo {
    const dir = tempDir('devpkg-clone-');
    git(dir, 'clone', '-q', '--depth', String(depth), '--branch', branch, `file://${this.dir}`, 'c');
    return new TestRepo(join(dir, 'c'));
  }

  git(...args: string[]): string {
    return git(this.dir, ...args);
  }

  write(files: Record<string, string>): this {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(this.dir, path)), { recursive: true });
      writeFileSync(join(this.dir, path), text);
    }
    return this;
  }

  rm(...paths: string[]): this {
    this.git('rm', '-r', '-q', '--', ...paths);
    return this;
  }

  mv(from: string, to: string): this {
    mkdirSync(dirname(join(this.dir, to)), { recursive: true });
    this.git('mv', '--', from, to);
    return this;
  }

  /** Stages everything and commits; returns the commit. */
  commit(message: string): string {
    this.git('add', '-A');
    this.git('commit', '-q', '--allow-empty', '-m', message);
    return this.head();
  }

  head(): string {
    return this.git('rev-parse', 'HEAD');
  }

  checkout(branch: string, create = false): this {
    if (create) this.git('checkout', '-q', '-b', branch);
    else this.git('checkout', '-q', branch);
    return this;
  }

  /** Adds `<dir>/<name>/<version>/package.yaml` and a bundle file. */
  addVersion(packagesDir: string, name: string, version: string, extra: Record<string, string> = {}): this {
    const base = `${packagesDir}/${name}/${version}`;
    this.write({
      [`${base}/package.yaml`]: `apiVersion: data.packaging.carvel.dev/v1alpha1\nkind: Package\nmetadata:\n  name: ${name}.example.com.${version}\nspec:\n  refName: ${name}.example.com\n  version: ${version}\n  template:\n    spec:\n      fetch:\n        - imgpkgBundle:\n            image: registry.example.com/${name}@sha256:${'0'.repeat(64)}\n`,
      [`${base}/bundle/config/values.yaml`]: `version: ${version}\n`,
      ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [`${base}/${k}`, v])),
    });
    return this;
  }
}

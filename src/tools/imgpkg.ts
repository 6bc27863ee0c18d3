import { execTool, type ExecFn, type ExecResult } from './exec.js';
import { askVersion, requireAtLeast, VersionedTool } from './tool.js';

/** `push --lock-output` and `IMGPKG_REGISTRY_*_N` credentials are both older than this. */
export const MIN_IMGPKG_VERSION: readonly [number, number] = [0, 10];

export interface RegistryLogin {
  /** host[:port] the credentials are for. */
  host: string;
  username: string;
  password: string;
}

// ---- argv builders (pure; tested table-style) ----

export const imgpkgArgs = {
  version: (): string[] => ['version'],
  /** `--registry-insecure` only when asked: imgpkg already uses HTTP for localhost/RFC1918 hosts. */
  push: (o: { image: string; bundleDir: string; lockOutput: string; insecure?: boolean }): string[] => [
    'push',
    '-b',
    o.image,
    '-f',
    o.bundleDir,
    '--lock-output',
    o.lockOutput,
    ...(o.insecure ? ['--registry-insecure'] : []),
  ],
  pull: (o: { image: string; outputDir: string; insecure?: boolean }): string[] => [
    'pull',
    '-b',
    o.image,
    '-o',
    o.outputDir,
    ...(o.insecure ? ['--registry-insecure'] : []),
  ],
  /** A bundle (and the images it locks) into another repository; the digest stays. */
  copy: (o: { image: string; toRepo: string; lockOutput: string }): string[] => ['copy', '-b', o.image, '--to-repo', o.toRepo, '--lock-output', o.lockOutput],
};

// ---- pure helpers ----

/**
 * `imgpkg version` prints "imgpkg version 0.46.1"; a build without release ldflags says
 * "develop", which is accepted (returned as undefined).
 */
export function parseImgpkgVersion(text: string): [number, number, number] | undefined | 'unknown' {
  const m = /imgpkg version v?(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])];
  if (/imgpkg version \S+/.test(text)) return undefined;
  return 'unknown';
}

/**
 * The environment that hands imgpkg credentials for one registry: imgpkg's env keychain reads
 * IMGPKG_REGISTRY_{HOSTNAME,USERNAME,PASSWORD}_<suffix>. devpkg takes the first numeric suffix
 * nobody uses yet, so credentials the user already set for other registries stay intact.
 * (imgpkg refuses unknown IMGPKG_REGISTRY_* names, so nothing else may be added here.)
 */
export function imgpkgAuthEnv(login: RegistryLogin, existing: NodeJS.ProcessEnv): Record<string, string> {
  let n = 0;
  const taken = (i: number) =>
    ['HOSTNAME', 'USERNAME', 'PASSWORD', 'IDENTITY_TOKEN', 'REGISTRY_TOKEN'].some(
      (k) => existing[`IMGPKG_REGISTRY_${k}_${i}`] !== undefined,
    );
  while (taken(n)) n++;
  // go-containerregistry names Docker Hub resources index.docker.io/..., and the keychain
  // matches on that name.
  const host = ['docker.io', 'registry-1.docker.io'].includes(login.host) ? 'index.docker.io' : login.host;
  return {
    [`IMGPKG_REGISTRY_HOSTNAME_${n}`]: host,
    [`IMGPKG_REGISTRY_USERNAME_${n}`]: login.username,
    [`IMGPKG_REGISTRY_PASSWORD_${n}`]: login.password,
  };
}

/**
 * Removes secrets from text that is about to be shown: the value itself and the forms an
 * HTTP library might echo (base64 of user:password, URL-encoding).
 */
export function scrubSecrets(text: string, secrets: ReadonlyArray<string | undefined>, login?: { username: string; password: string }): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (!s) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
  }
  if (login?.password) {
    forms.add(Buffer.from(`${login.username}:${login.password}`, 'utf8').toString('base64'));
  }
  let out = text;
  for (const f of [...forms].sort((a, b) => b.length - a.length)) {
    if (f.length > 0) out = out.split(f).join('***');
  }
  return out;
}

/**
 * The imgpkg CLI. Every call goes through `run`, with argv arrays, never a shell; credentials
 * only travel in the child's environment and are scrubbed from anything it prints.
 */
export class Imgpkg extends VersionedTool<[number, number, number] | undefined> {
  /** Finds imgpkg (execTool names it when missing) and checks its version (undefined: a develop build). */
  static async create(exec: ExecFn = execTool, path = 'imgpkg'): Promise<Imgpkg> {
    const { version } = await askVersion(exec, path, imgpkgArgs.version(), (out) => {
      const v = parseImgpkgVersion(out);
      return v === 'unknown' ? undefined : { version: v };
    });
    if (version) requireAtLeast('imgpkg', version, MIN_IMGPKG_VERSION);
    return new Imgpkg(path, version, exec);
  }

  private async run(args: string[], login?: RegistryLogin, cwd?: string): Promise<ExecResult> {
    const env = login ? imgpkgAuthEnv(login, process.env) : {};
    const r = await this.exec(this.path, args, { env, cwd, allowFail: true });
    if (!login) return r;
    const clean = (t: string) => scrubSecrets(t, [login.password], login);
    return { code: r.code, stdout: clean(r.stdout), stderr: clean(r.stderr) };
  }

  /** `imgpkg push -b IMAGE -f DIR --lock-output FILE`; returns the (scrubbed) result, code included. */
  async push(o: { image: string; bundleDir: string; lockOutput: string; insecure?: boolean; login?: RegistryLogin }): Promise<ExecResult> {
    return this.run(imgpkgArgs.push(o), o.login);
  }

  async pull(o: { image: string; outputDir: string; insecure?: boolean; login?: RegistryLogin }): Promise<ExecResult> {
    return this.run(imgpkgArgs.pull(o), o.login);
  }

  async copy(o: { image: string; toRepo: string; lockOutput: string }): Promise<ExecResult> {
    return this.run(imgpkgArgs.copy(o));
  }
}

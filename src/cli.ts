import { DevpkgError, errorMessage } from './errors.js';
import type { CliIO, CommandRun } from './commands/io.js';

interface CommandEntry {
  summary: string;
  load: () => Promise<{ run: CommandRun }>;
}

// Commands load lazily so `devpkg select` never pays for the Kubernetes client.
export const COMMANDS: Record<string, CommandEntry> = {
  plan: { summary: 'what would be pushed and applied for the changed packages (no cluster)', load: () => import('./commands/plan.js') },
  detect: { summary: 'list the changed package versions between two refs', load: () => import('./commands/detect.js') },
  select: { summary: 'the version kapp-controller would install from a list of versions', load: () => import('./commands/select.js') },
  derive: { summary: 'make the dev Package from a released Package', load: () => import('./commands/derive.js') },
  overlay: { summary: 'print the 04_user_customizations ytt file for a dev Package', load: () => import('./commands/overlay.js') },
  push: { summary: 'push a bundle folder with imgpkg and print repo@sha256:...', load: () => import('./commands/push.js') },
  kind: { summary: 'the kind mode here: a throwaway kind cluster, the released and dev Packages, verified, cleaned up', load: () => import('./commands/kind.js') },
  dev: { summary: 'push, derive, apply and verify a package version on a running cluster', load: () => import('./commands/dev.js') },
  verify: { summary: 'wait until a PackageInstall runs the expected version, and say why not', load: () => import('./commands/verify.js') },
  bootstrap: { summary: 'prepare the tanzu providers and create a management cluster with the dev Package', load: () => import('./commands/bootstrap.js') },
  config: { summary: 'the settings from flags, DEVPKG_* variables and devpkg.yaml, and where each came from', load: () => import('./commands/config.js') },
};

export function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'devpkg: prove that a Carvel package change is what kapp-controller installs',
    '',
    'Usage: devpkg <command> [flags]   (devpkg <command> --help for its flags)',
    '',
    'Commands:',
    ...lines,
    '',
    'Flags not given are read from DEVPKG_* variables, then devpkg.yaml (--config FILE names another): devpkg config.',
    'Exit codes: 0 ok, 1 a check failed, 2 bad usage.',
  ].join('\n');
}

export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage() + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version') {
    io.stdout('devpkg 0.1.0\n');
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.stderr(`devpkg: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  try {
    const mod = await entry.load();
    return await mod.run(rest, io);
  } catch (err) {
    const code = err instanceof DevpkgError ? err.exitCode : 1;
    const where = err instanceof DevpkgError && err.file ? `${err.file}${err.line ? `:${err.line}` : ''}: ` : '';
    io.stderr(`devpkg ${name}: ${where}${errorMessage(err)}\n`);
    if (!(err instanceof DevpkgError) && process.env.DEVPKG_DEBUG && err instanceof Error) io.stderr(`${err.stack}\n`);
    return code;
  }
}

export function processIO(): CliIO {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    cwd: process.cwd(),
  };
}

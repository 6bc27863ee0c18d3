import { DevpkgError, errorMessage } from './errors.js';
import type { CliIO, CommandRun } from './commands/io.js';
import { closest } from './suggest.js';
import { versionLine } from './version.js';

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
  completion: {
    summary: 'print a completion script for bash, zsh or fish',
    load: async () => {
      const { run } = await import('./commands/completion.js');
      return { run: (argv, io) => run(argv, io, { commands: COMMANDS, builtins: BUILTINS, topFlags: TOP_FLAGS }) };
    },
  },
};

/**
 * What devpkg answers besides COMMANDS, listed with them (usage, completion, "did you mean").
 * `version` is the version branch of runCli.
 */
export const BUILTINS: Record<string, { summary: string; args?: string[] }> = {
  help: { summary: "this help, or a command's: devpkg help <command>", args: Object.keys(COMMANDS) },
  version: { summary: "print devpkg's version" },
};

/** The flags devpkg takes before a command (completion and "did you mean" read them here). */
export const TOP_FLAGS: Record<string, { short?: string; summary: string }> = {
  help: { short: 'h', summary: 'show the commands' },
  version: { short: 'V', summary: "print devpkg's version" },
};

export function usage(): string {
  const all = { ...COMMANDS, ...BUILTINS };
  const width = Math.max(...Object.keys(all).map((c) => c.length));
  const lines = Object.entries(all).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'devpkg: prove that a Carvel package change is what kapp-controller installs',
    '',
    'Usage: devpkg <command> [flags]   (devpkg help <command>, or devpkg <command> --help, for its flags)',
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
  if (name === undefined) {
    // No command is bad usage: the usage goes to stderr, as every error does.
    io.stderr(usage() + '\n');
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') return help(rest, io);

  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout(`${versionLine()}\n`);
    return 0;
  }

  const entry = command(name);
  if (!entry) return unknownCommand(name, io);
  return runCommand(name, entry, rest, io);
}

/** The command of that name (own entries only: `devpkg constructor` is no command). */
function command(name: string): CommandEntry | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
}

/** `devpkg help`, `devpkg help <command>` (that command's help), `devpkg --help <command>`. */
async function help(args: string[], io: CliIO): Promise<number> {
  const [name, ...extra] = args;
  if (name === undefined || (Object.hasOwn(BUILTINS, name) && extra.length === 0)) {
    io.stdout(usage() + '\n');
    return 0;
  }
  const entry = command(name);
  if (!entry) return unknownCommand(name, io);
  if (extra.length > 0) {
    io.stderr(`devpkg help: give one command, e.g. devpkg help ${name}\n`);
    return 2;
  }
  return runCommand(name, entry, ['--help'], io);
}

function unknownCommand(name: string, io: CliIO): number {
  if (name.startsWith('-')) {
    const guess = closest(name.replace(/^--?/, ''), Object.keys(TOP_FLAGS));
    io.stderr(
      guess === undefined
        ? `devpkg: unknown flag ${name}; flags go after the command: devpkg <command> ${name} (devpkg --help lists the commands)\n`
        : `devpkg: unknown flag ${name}; did you mean --${guess}?\n`,
    );
    return 2;
  }
  const guess = closest(name, [...Object.keys(COMMANDS), ...Object.keys(BUILTINS)]);
  if (guess !== undefined) io.stderr(`devpkg: unknown command "${name}"; did you mean ${guess}?\n`);
  else io.stderr(`devpkg: unknown command "${name}"\n\n${usage()}\n`);
  return 2;
}

async function runCommand(name: string, entry: CommandEntry, args: string[], io: CliIO): Promise<number> {
  try {
    const mod = await entry.load();
    return await mod.run(args, io);
  } catch (err) {
    const code = err instanceof DevpkgError ? err.exitCode : 1;
    const where = err instanceof DevpkgError && err.file ? `${err.file}${err.line ? `:${err.line}` : ''}: ` : '';
    io.stderr(`devpkg ${name}: ${where}${errorMessage(err)}\n`);
    if (!(err instanceof DevpkgError) && process.env.DEVPKG_DEBUG && err instanceof Error) io.stderr(`${err.stack}\n`);
    return code;
  } finally {
    // The run's git cat-file --batch, if one was started, ends with the run.
    await (await import('./tools/git.js')).closeGitReaders();
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

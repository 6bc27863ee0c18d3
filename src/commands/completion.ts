/**
 * `devpkg completion bash|zsh|fish`: a completion script for the commands and each command's
 * flags. Nothing here lists a flag: each command is asked for its help, and hands parseCommand's
 * flag table over with it (CliIO.flagTable), so a flag added to a command is completed at once.
 */
import { UsageError } from '../errors.js';
import { parseCommand, type CliIO, type CommandRun, type Options } from './io.js';
import { closest } from '../suggest.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

const USAGE = `Usage: devpkg completion bash|zsh|fish

Prints a script that completes devpkg's commands and each command's flags in that shell (a
flag's value completes as a file name), made from the flag tables the commands parse with.
Install it once (docs/cli.md, "devpkg completion"):

  bash  devpkg completion bash > ~/.local/share/bash-completion/completions/devpkg
        (or source <(devpkg completion bash) in ~/.bashrc)
  zsh   devpkg completion zsh > ~/.zfunc/_devpkg, with fpath=(~/.zfunc $fpath) before compinit
        in ~/.zshrc (or source <(devpkg completion zsh) after compinit)
  fish  devpkg completion fish > ~/.config/fish/completions/devpkg.fish

  -h, --help   show this help
`;

export interface FlagSpec {
  name: string;
  short?: string;
  /** Takes a value (`--name VALUE`), completed as a file name. */
  value: boolean;
  description: string;
}

export interface CommandSpec {
  name: string;
  summary: string;
  flags: FlagSpec[];
  /** The words its first argument can be (help: the commands; completion: the shells). */
  args: string[];
}

export interface CompletionSpec {
  commands: CommandSpec[];
  /** Flags devpkg takes before a command (--help, --version). */
  flags: FlagSpec[];
}

/** What the entry point knows of itself (src/cli.ts hands it in: nothing here imports an entry point). */
export interface CliTables {
  commands: Record<string, { summary: string; load: () => Promise<{ run: CommandRun }> }>;
  builtins: Record<string, { summary: string; args?: string[] }>;
  topFlags: Record<string, { short?: string; summary: string }>;
}

export async function run(argv: string[], io: CliIO, cli?: CliTables): Promise<number> {
  const [shell, ...rest] = argv;
  // The shell is the one positional value; `help` alone, and any flag, are parseCommand's.
  const positional = shell !== undefined && !shell.startsWith('-') && !(shell === 'help' && rest.length === 0);
  if (!parseCommand(positional ? rest : argv, io, USAGE, {})) return 0;
  if (!positional) throw new UsageError('give the shell: devpkg completion bash, zsh or fish');
  if (!(SHELLS as readonly string[]).includes(shell)) {
    const guess = closest(shell, SHELLS);
    throw new UsageError(`unknown shell "${shell}"; ${guess ? `did you mean ${guess}?` : 'give bash, zsh or fish'}`);
  }
  if (!cli) throw new Error('devpkg completion runs from the devpkg command');
  const spec = await completionSpec(cli);
  io.stdout(SCRIPTS[shell as Shell](spec));
  return 0;
}

/** Every command asked for its help: its flag table and the words of its help text. */
export async function completionSpec(cli: CliTables): Promise<CompletionSpec> {
  const commands: CommandSpec[] = [];
  for (const [name, entry] of Object.entries(cli.commands)) {
    let help = '';
    let table: Options | undefined;
    const io: CliIO = { stdout: (t) => (help += t), stderr: () => undefined, env: {}, cwd: process.cwd(), flagTable: (o) => (table = o) };
    await (await entry.load()).run(['--help'], io);
    if (!table) throw new Error(`devpkg ${name} --help gave no flag table (its run must start with parseCommand)`);
    // A flag the help does not name (push's --registry-password, known only to be refused) is not offered.
    const flags = Object.entries(table).flatMap(([flag, o]) => {
      const description = describe(help, flag);
      return description === undefined ? [] : [{ name: flag, short: o.short, value: o.type === 'string', description }];
    });
    flags.push({ name: 'help', short: 'h', value: false, description: 'show this help' });
    commands.push({ name, summary: entry.summary, flags, args: name === 'completion' ? [...SHELLS] : [] });
  }
  for (const [name, b] of Object.entries(cli.builtins)) commands.push({ name, summary: b.summary, flags: [], args: b.args ?? [] });
  const flags = Object.entries(cli.topFlags).map(([name, f]) => ({ name, short: f.short, value: false, description: f.summary }));
  return { commands, flags };
}

/**
 * What a help text says of a flag: `--repo DIR  the repository` gives `the repository`; a flag
 * whose line holds only its value's name is described on the next line; undefined when the help
 * has no line for the flag.
 */
export function describe(help: string, flag: string): string | undefined {
  const lines = help.split('\n');
  const start = new RegExp(`^\\s+(?:-[a-zA-Z], )?--${flag}(?![a-z0-9-])`);
  const i = lines.findIndex((l) => start.test(l));
  if (i < 0) return undefined;
  const rest = lines[i]!.replace(start, '');
  const parts = rest.split(/\s{2,}/).map((p) => p.trim()).filter((p) => p !== '');
  if (/^\s{2,}\S/.test(rest)) return parts[0]!;
  if (parts.length > 1) return parts.slice(1).join(' ');
  if (parts.length === 1 && /\s/.test(parts[0]!)) return parts[0]!;
  const next = lines[i + 1]?.trim() ?? '';
  return next.startsWith('-') ? '' : next;
}

const NAME = /^[a-z][a-z0-9-]*$/;

/** Names go into the scripts unquoted: only what devpkg's tables hold is allowed. */
function checked(spec: CompletionSpec): CompletionSpec {
  for (const c of spec.commands) {
    for (const word of [c.name, ...c.args, ...c.flags.map((f) => f.name)]) {
      if (!NAME.test(word)) throw new Error(`completion: "${word}" of devpkg ${c.name} is not a plain name`);
    }
  }
  return spec;
}

const dashed = (f: FlagSpec): string[] => [...(f.short ? [`-${f.short}`] : []), `--${f.name}`];

export function bashScript(spec: CompletionSpec): string {
  const { commands, flags } = checked(spec);
  const cases = commands.map((c) => {
    const words = c.flags.flatMap(dashed).join(' ');
    const values = c.flags.filter((f) => f.value).map((f) => `--${f.name}`).join(' ');
    return `    ${c.name}) flags='${words}' values=' ${values} ' args='${c.args.join(' ')}' ;;`;
  });
  return `# bash completion for devpkg, made by \`devpkg completion bash\` from devpkg's own flag tables.
_devpkg() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev='' flags='' values='' args=''
  if [ "$COMP_CWORD" -gt 0 ]; then prev=\${COMP_WORDS[COMP_CWORD-1]}; fi
  COMPREPLY=()
  if [ "$COMP_CWORD" -le 1 ]; then
    case $cur in
      -*) COMPREPLY=($(compgen -W '${flags.flatMap(dashed).join(' ')}' -- "$cur")) ;;
      *) COMPREPLY=($(compgen -W '${commands.map((c) => c.name).join(' ')}' -- "$cur")) ;;
    esac
    return 0
  fi
  case \${COMP_WORDS[1]} in
${cases.join('\n')}
    *) return 0 ;;
  esac
  # The value of a flag (--flag VALUE, or --flag=VALUE: bash splits at "="): left to file-name
  # completion (complete -o default).
  if [[ $values == *" $prev "* || $prev == = || $cur == = ]]; then return 0; fi
  if [ -n "$args" ] && [ "$COMP_CWORD" -eq 2 ] && [[ $cur != -* ]]; then
    COMPREPLY=($(compgen -W "$args" -- "$cur"))
  elif [ -z "$cur" ] || [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  fi
  return 0
}
complete -o default -F _devpkg devpkg
`;
}

/** A zsh single-quoted word. */
const zq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
/** An _arguments description: brackets and backslashes escaped. */
const zdesc = (s: string): string => s.replace(/[\\[\]]/g, (c) => `\\${c}`);

export function zshScript(spec: CompletionSpec): string {
  const { commands, flags } = checked(spec);
  const described = (f: FlagSpec) => dashed(f).map((d) => zq(`${d}:${f.description}`));
  const cases = commands.map((c) => {
    const specs = [
      ...c.flags.flatMap((f) => dashed(f).map((d) => zq(`${d}${f.value ? '=' : ''}[${zdesc(f.description)}]${f.value ? `:${f.name}:_files` : ''}`))),
      ...(c.args.length > 0 ? [zq(`1:${c.name === 'help' ? 'command' : 'argument'}:(${c.args.join(' ')})`)] : []),
    ];
    return specs.length === 0 ? `    (${c.name}) ;;` : `    (${c.name}) _arguments -s \\\n      ${specs.join(' \\\n      ')} ;;`;
  });
  return `#compdef devpkg
# zsh completion for devpkg, made by \`devpkg completion zsh\` from devpkg's own flag tables.
_devpkg() {
  local -a commands flags
  commands=(
    ${commands.map((c) => zq(`${c.name}:${c.summary}`)).join('\n    ')}
  )
  flags=(${flags.flatMap(described).join(' ')})
  if (( CURRENT == 2 )); then
    if [[ $PREFIX == -* ]]; then
      _describe -t flags 'devpkg flag' flags
    else
      _describe -t commands 'devpkg command' commands
    fi
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases.join('\n')}
  esac
}
if [ "$funcstack[1]" = "_devpkg" ]; then
  _devpkg "$@"
else
  compdef _devpkg devpkg
fi
`;
}

/** A fish single-quoted word. */
const fq = (s: string): string => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;

export function fishScript(spec: CompletionSpec): string {
  const { commands, flags } = checked(spec);
  const flag = (cond: string, f: FlagSpec) =>
    `complete -c devpkg -n ${cond}${f.short ? ` -s ${f.short}` : ''} -l ${f.name}${f.value ? ' -r -F' : ''} -d ${fq(f.description)}`;
  const lines = [
    "# fish completion for devpkg, made by `devpkg completion fish` from devpkg's own flag tables.",
    'complete -c devpkg -f',
    ...commands.map((c) => `complete -c devpkg -n __fish_use_subcommand -a ${c.name} -d ${fq(c.summary)}`),
    ...flags.map((f) => flag('__fish_use_subcommand', f)),
    ...commands.flatMap((c) => {
      const cond = fq(`__fish_seen_subcommand_from ${c.name}`);
      return [...c.flags.map((f) => flag(cond, f)), ...(c.args.length > 0 ? [`complete -c devpkg -n ${cond} -a ${fq(c.args.join(' '))}`] : [])];
    }),
  ];
  return `${lines.join('\n')}\n`;
}

const SCRIPTS: Record<Shell, (spec: CompletionSpec) => string> = { bash: bashScript, zsh: zshScript, fish: fishScript };

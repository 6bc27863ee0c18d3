// devpkg as a real process, for tests that send it real signals (jest's sandboxed `process` does
// not receive them) or must see it exit: src/ transpiled file by file (no type check, no bundle)
// into lib/ inside the repository, so node_modules and "type": "module" resolve as for dist/.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';
import { repoRoot } from './run.js';

export interface BuiltDevpkg {
  /** lib/devpkg-it-*: cli.js (the devpkg command) and index.js (the action's main step). */
  dir: string;
  cli: string;
  action: string;
  remove(): void;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

export function buildDevpkg(): BuiltDevpkg {
  const dir = join(repoRoot, 'lib', `devpkg-it-${process.pid}-${Date.now().toString(36)}`);
  for (const file of sources(join(repoRoot, 'src'))) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      fileName: file,
    });
    const target = join(dir, relative(repoRoot, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, out.outputText);
  }
  // src/version.ts imports ../package.json (ncc inlines it into dist/): here it sits beside src/.
  writeFileSync(join(dir, 'package.json'), readFileSync(join(repoRoot, 'package.json')));
  // The entry tells the command from the action by its script name, as dist/cli.js and dist/index.js.
  writeFileSync(join(dir, 'cli.js'), "import './src/index.js';\n");
  writeFileSync(join(dir, 'index.js'), "import './src/index.js';\n");
  return { dir, cli: join(dir, 'cli.js'), action: join(dir, 'index.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout or stderr holds the text. */
  until(text: string): Promise<void>;
  /** Exit code, or 128 + the signal number when it was killed by a signal it did not handle. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function start(script: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string }): Running {
  const child = spawn(process.execPath, [script, ...args], { env: opts.env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const waiters: Array<{ text: string; resolve: () => void }> = [];
  const check = (): void => {
    for (const w of waiters.splice(0)) {
      if (out.includes(w.text) || err.includes(w.text)) w.resolve();
      else waiters.push(w);
    }
  };
  child.stdout!.on('data', (d) => {
    out += d;
    check();
  });
  child.stderr!.on('data', (d) => {
    err += d;
    check();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    until: (text) =>
      out.includes(text) || err.includes(text)
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            waiters.push({ text, resolve });
            void exited.then(() => reject(new Error(`devpkg exited before printing "${text}":\n${out}\n${err}`)));
          }),
    exited,
  };
}

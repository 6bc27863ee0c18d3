// One bundle, three entry points: dist/index.js (action main), dist/post.js
// (action post step) and dist/cli.js (the devpkg command) are thin shims that
// import this file; the script name tells them apart.
import { basename } from 'node:path';
import { exitWhenFlushed } from './exit.js';

const script = basename(process.argv[1] ?? '');

async function entry(): Promise<void> {
  if (script === 'cli.js' || script === 'devpkg') {
    const { runCli, processIO } = await import('./cli.js');
    const code = await runCli(process.argv.slice(2), processIO());
    exitWhenFlushed(code);
  } else if (script === 'post.js') {
    const { runPost } = await import('./post.js');
    await runPost();
    exitWhenFlushed(Number(process.exitCode ?? 0));
  } else {
    const { runMain } = await import('./main.js');
    await runMain();
    // Nothing devpkg left open (an unanswered watch, a keep-alive socket) may hold the step.
    exitWhenFlushed(Number(process.exitCode ?? 0));
  }
}

entry().catch((err: unknown) => {
  process.stderr.write(`devpkg: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

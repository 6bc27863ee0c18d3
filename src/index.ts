// One bundle, three entry points: dist/index.js (action main), dist/post.js
// (action post step) and dist/cli.js (the devpkg command) are thin shims that
// import this file; the script name tells them apart.
import { basename } from 'node:path';

const script = basename(process.argv[1] ?? '');

async function entry(): Promise<void> {
  if (script === 'cli.js' || script === 'devpkg') {
    const { runCli, processIO } = await import('./cli.js');
    const code = await runCli(process.argv.slice(2), processIO());
    // Flush stdout before exiting: large JSON plans are written asynchronously to pipes.
    process.stdout.write('', () => process.exit(code));
  } else if (script === 'post.js') {
    const { runPost } = await import('./post.js');
    await runPost();
  } else {
    const { runMain } = await import('./main.js');
    await runMain();
  }
}

entry().catch((err: unknown) => {
  process.stderr.write(`devpkg: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});

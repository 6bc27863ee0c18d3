// The integration and workflow tiers' test environment: node's, plus a check that a test file
// leaves nothing of ours in the temp folder. Whatever a test file (or the devpkg it runs, or a
// stand-in) made there under devpkg-* or standin-* and did not remove fails that file by name,
// and is then removed so the next file starts clean. One file at a time uses a temp folder (in band,
// or in its slot's own temp folder when scripts/test-lanes.mjs runs two at once): what appears
// during a file is that file's.
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { TestEnvironment } from 'jest-environment-node';

const OURS = /^(devpkg-|standin-)/;
/** Kept on purpose across files: the harness's state, its build lock, devpkg's documented diagnostics folder. */
const KEPT = new Set(['devpkg-harness', 'devpkg-harness.lock', 'devpkg-prebuild.lock', 'devpkg-diagnostics']);

/** Our entries in the temp folder (TMPDIR), but the ones kept on purpose. */
export const ours = () => readdirSync(tmpdir()).filter((n) => OURS.test(n) && !KEPT.has(n));

export default class LeakCheckingEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = relative(config.projectConfig.rootDir, context.testPath);
  }

  async setup() {
    await super.setup();
    this.before = new Set(ours());
  }

  // After the file's own afterAll hooks (run_finish), before jest gathers its results: the leak is
  // reported beside the tests' outcomes (an error thrown in teardown would hide them).
  handleTestEvent(event, state) {
    if (event.name !== 'run_finish') return;
    const left = ours().filter((n) => !this.before.has(n));
    if (left.length === 0) return;
    for (const n of left) rmSync(join(tmpdir(), n), { recursive: true, force: true });
    state.unhandledErrors.push(new Error(`${this.testPath} left ${left.length} item(s) in ${tmpdir()} (now removed): ${left.join(', ')}`));
  }
}

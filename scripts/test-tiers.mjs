#!/usr/bin/env node
// `npm test`: the unit tier, then the integration tier, then the workflow tier, stopping at the
// first that fails. Each tier's time goes to stderr at its end, and, when DEVPKG_PHASES_FILE names
// a file, a line there (.ci/run prints them with its other phases). DEVPKG_TIERS=unit,workflows
// runs only those.
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const ALL = ['unit', 'integration', 'workflows'];
const asked = (process.env.DEVPKG_TIERS ?? '').split(',').map((t) => t.trim()).filter(Boolean);
const unknown = asked.filter((t) => !ALL.includes(t));
if (unknown.length > 0) {
  console.error(`DEVPKG_TIERS: ${unknown.join(', ')} is not a tier; use some of ${ALL.join(', ')}`);
  process.exit(2);
}
const tiers = asked.length > 0 ? ALL.filter((t) => asked.includes(t)) : ALL;
for (const tier of tiers) {
  const t0 = Date.now();
  const r = spawnSync('npm', ['run', `test:${tier}`], { stdio: 'inherit' });
  const seconds = Math.round((Date.now() - t0) / 1000);
  const failed = r.status !== 0;
  const line = `${`${tier} tier`.padEnd(20)} ${String(seconds).padStart(6)}s${failed ? `  FAILED (${r.signal ?? `exit ${r.status}`})` : ''}`;
  console.error(`== ${line}`);
  if (process.env.DEVPKG_PHASES_FILE) appendFileSync(process.env.DEVPKG_PHASES_FILE, `${line}\n`);
  if (failed) process.exit(r.status ?? 1);
}

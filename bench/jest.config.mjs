// The workflow tier's jest project (jest.config.js: ts-jest, the leak-checking environment, the
// long time-outs) pointed at the benches that need its helpers (act, the stand-ins, the worlds):
// bench/*.bench.ts. Not a tier: `npm test` never runs these; bench/act-kind.bench.mjs does.
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import config from '../jest.config.js';

const workflows = config.projects.find((p) => p.displayName === 'workflows');
export default {
  ...workflows,
  displayName: 'bench',
  rootDir: resolve(dirname(fileURLToPath(import.meta.url)), '..'),
  testMatch: ['<rootDir>/bench/**/*.bench.ts'],
};

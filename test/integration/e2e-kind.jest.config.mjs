// The kind-mode integration test alone, for .github/workflows/e2e-kind.yml on GitHub's runner:
// the integration project without the harness's global setup (no control plane is built there;
// the test file creates its kind clusters through devpkg itself).
import { fileURLToPath } from 'node:url';
import base from '../../jest.config.js';

const integration = base.projects.find((p) => p.displayName === 'integration');
export default {
  ...integration,
  rootDir: fileURLToPath(new URL('../..', import.meta.url)),
  globalSetup: undefined,
  globalTeardown: undefined,
  testMatch: ['<rootDir>/test/integration/kind-mode.test.ts'],
};

// Three tiers: unit (pure code, real git in temp dirs, argv), integration (the harness: a real
// control plane, registry, Carvel tools and kapp-controller) and workflows (the workflow files we
// ship, run by nektos/act with our stand-ins for GitHub's actions and API; test/workflows/).
const tsJest = [
  'ts-jest',
  { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false },
];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
};
export default {
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/globalSetup.mjs',
      globalTeardown: '<rootDir>/test/integration/globalTeardown.mjs',
      testEnvironment: '<rootDir>/test/leak-environment.mjs',
      testTimeout: 300000,
      setupFilesAfterEnv: ['<rootDir>/test/integration/setupTimeout.mjs'],
    },
    {
      ...common,
      displayName: 'workflows',
      testMatch: ['<rootDir>/test/workflows/**/*.test.ts'],
      testEnvironment: '<rootDir>/test/leak-environment.mjs',
      setupFilesAfterEnv: ['<rootDir>/test/integration/setupTimeout.mjs'],
    },
  ],
};

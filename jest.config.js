// Three tiers (see README): unit specs next to the code, integration specs
// against the machine's PostgreSQL and RabbitMQ, end-to-end specs that boot
// the six services as processes.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const moduleNameMapper = {
  '^@docflow/(.*)$': '<rootDir>/libs/$1/src/index.ts',
};

const base = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper,
  testEnvironment: 'node',
  setupFiles: ['reflect-metadata'],
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

module.exports = {
  // Each integration file creates and migrates a database of its own; on a shared 2-core machine
  // under load that alone passed jest's 5-second default for a hook. Jest reads this option only
  // here, for every project, not per project.
  testTimeout: 30000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts', '<rootDir>/deploy/**/*.spec.ts'] },
    { ...base, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/e2e/**/*.e2e-spec.ts'] },
    // The fault suite (npm run test:faults): kills services and floods queues, so it runs alone and never in `npm test`.
    { ...base, displayName: 'faults', testMatch: ['<rootDir>/faults/**/*.faults-spec.ts'] },
  ],
};

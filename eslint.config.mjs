// Lint is part of `npm test`: module boundaries between Nx projects, the
// single door to amqplib and TypeORM, and the floating-promise rule.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const depConstraints = [
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
  { sourceTag: 'lib:contracts', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:list-query', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:mail', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:storage', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:llm-client', onlyDependOnLibsWithTags: ['lib:service-kit', 'lib:contracts', 'lib:internal-auth', 'lib:internal-http'] },
  { sourceTag: 'lib:rtio', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  // The named-entity tagger is self-contained: its model and gazetteers ship in one file.
  { sourceTag: 'lib:ner', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:text-extraction', onlyDependOnLibsWithTags: ['lib:service-kit', 'lib:safe-zip', 'lib:sandbox'] },
  { sourceTag: 'lib:doc-conversion', onlyDependOnLibsWithTags: ['lib:service-kit', 'lib:safe-zip', 'lib:sandbox'] },
  // Runs LibreOffice and tesseract: scrubbed environment, no network, resource limits.
  { sourceTag: 'lib:sandbox', onlyDependOnLibsWithTags: [] },
  // Reads untrusted zip archives (yauzl) in a worker thread, counting what it inflates.
  { sourceTag: 'lib:safe-zip', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:workflow', onlyDependOnLibsWithTags: ['lib:safe-regex', 'lib:service-kit'] },
  { sourceTag: 'lib:safe-regex', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:service-kit', onlyDependOnLibsWithTags: ['lib:telemetry'] },
  // OpenTelemetry set-up and the span helpers the HTTP app, the internal HTTP client and the broker share (issue #18 item 5).
  { sourceTag: 'lib:telemetry', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:outbound-http', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:messaging', onlyDependOnLibsWithTags: ['lib:contracts', 'lib:service-kit', 'lib:telemetry'] },
  { sourceTag: 'lib:persistence', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:internal-auth', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  // The one transport between services: credentials, correlation id, deadline, keep-alive, error shapes.
  { sourceTag: 'lib:internal-http', onlyDependOnLibsWithTags: ['lib:service-kit', 'lib:internal-auth', 'lib:telemetry'] },
  { sourceTag: 'lib:cloud-drive', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:email-source', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:data-shield', onlyDependOnLibsWithTags: ['lib:service-kit', 'lib:internal-auth', 'lib:internal-http', 'lib:ner', 'lib:safe-regex'] },
  { sourceTag: 'lib:testing', onlyDependOnLibsWithTags: ['type:lib'] },
];

// Test files may also use the test-isolation helpers of libs/testing.
const testDepConstraints = depConstraints.map((c) => ({ ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'lib:testing'] }));

const restricted = (names, message) => names.map((name) => ({ name, message }));

// The public API's modules (apps/public-api/src/<module>/): one imports another only through
// its index.ts; platform imports no other module. Files at the root of src (main.ts, app.ts,
// data-source.ts, cli/, test-support/) compose the modules, through their index.ts too.
// Tests may also reach into another module's test-support/.
const PUBLIC_API = 'apps/public-api/src';
const ROOT_FILES = ['main', 'server', 'app', 'data-source', 'cluster-primary', 'cli-runner'];
const MODULES = ['identity', 'documents', 'rag', 'workflows', 'agents', 'shield', 'platform', 'workers'];
const moduleImportRules = (own, { tests }) => {
  const others = MODULES.filter((m) => m !== own).join('|');
  const notTestSupport = tests ? '(?!(?:.*/)?test-support/)' : '';
  const up = own ? '(?:\\.\\./)+' : '(?:\\./|(?:\\.\\./)+)';
  const patterns = [{ regex: `^${up}(?:${others})/${notTestSupport}`, message: 'Import another module of the public API through its index.ts.' }];
  // The composition root (main, server, app, data-source, ...) builds the modules: a module's own code never imports it.
  if (own && !tests) patterns.push({ regex: `^(?:\\.\\./)+(?:${ROOT_FILES.join('|')})$`, message: 'A module does not import the composition root; the database type comes from platform.' });
  if (own === 'platform') patterns.push({ regex: `^(?:\\.\\./)+(?:${others})(?:/|$)`, message: 'platform is what every module uses: it imports no other module.' });
  return { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] };
};
const TEST_FILES = ['**/*.spec.ts', '**/*.int-spec.ts', '**/test-support/**/*.ts'];
const publicApiModuleBoundaries = [undefined, ...MODULES].flatMap((own) => {
  const files = own ? [`${PUBLIC_API}/${own}/**/*.ts`] : [`${PUBLIC_API}/*.ts`, `${PUBLIC_API}/cli/**/*.ts`, `${PUBLIC_API}/test-support/**/*.ts`];
  return [
    { files, rules: moduleImportRules(own, { tests: false }) },
    {
      files: own ? TEST_FILES.map((t) => `${PUBLIC_API}/${own}/${t}`) : [`${PUBLIC_API}/*.spec.ts`, `${PUBLIC_API}/*.int-spec.ts`, `${PUBLIC_API}/test-support/**/*.ts`],
      rules: moduleImportRules(own, { tests: true }),
    },
  ];
});

// SQL lives in repositories (and migrations); tests may read and seed tables directly.
const noRawSql = {
  files: ['apps/**/src/**/*.ts'],
  ignores: ['**/*.repository.ts', '**/migrations/**', ...TEST_FILES],
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: "CallExpression[callee.property.name='query']", message: 'Raw SQL belongs in a *.repository.ts.' },
      { selector: "CallExpression[callee.property.name='createQueryBuilder']", message: 'Query builders belong in a *.repository.ts.' },
    ],
  },
};

export default [
  { ignores: ['**/node_modules/**', 'dist/**', 'var/**', '.nx/**', '.tmp/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    ignores: ['apps/console/**'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': [
        'error',
        {
          paths: [...restricted(['amqplib'], 'Only libs/messaging talks to RabbitMQ.'), ...restricted(['typeorm'], 'Only repositories, entities, migrations and libs/persistence import TypeORM.')],
        },
      ],
    },
  },
  {
    // The web console runs in the browser: its own tsconfig (DOM, JSX), React's hook rules, and no server libs.
    files: ['apps/console/**/*.ts', 'apps/console/**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: {
      parserOptions: { project: './apps/console/tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'off',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: [{ group: ['@docflow/*', 'node:*'], message: 'The console talks to the public API over HTTP only.' }] }],
    },
  },
  {
    files: ['libs/messaging/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: restricted(['typeorm'], 'messaging has no database.') }] },
  },
  {
    files: [
      'libs/persistence/**/*.ts',
      '**/*.entity.ts',
      '**/*.repository.ts',
      '**/migrations/*.ts',
      '**/*.int-spec.ts',
      'libs/testing/**/*.ts',
      '**/data-source.ts',
      'apps/public-api/src/platform/database.ts',
    ],
    rules: { 'no-restricted-imports': ['error', { paths: restricted(['amqplib'], 'Only libs/messaging talks to RabbitMQ.') }] },
  },
  {
    // End-to-end tests and the fault suite poke the broker directly (raw and invalid messages).
    files: ['e2e/**/*.ts', 'faults/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: restricted(['typeorm'], 'e2e tests use the public interfaces.') }] },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'e2e/**/*.ts', 'faults/**/*.ts', '**/test-support/**/*.ts'],
    ignores: ['apps/console/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints: testDepConstraints }],
    },
  },
  ...publicApiModuleBoundaries,
  noRawSql,
];

// Lint is part of `npm test`: module boundaries between Nx projects, the
// single door to amqplib and TypeORM, and the floating-promise rule.
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

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
  { sourceTag: 'lib:text-extraction', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:doc-conversion', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:workflow', onlyDependOnLibsWithTags: ['lib:safe-regex', 'lib:service-kit'] },
  { sourceTag: 'lib:safe-regex', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:service-kit', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:outbound-http', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'lib:messaging', onlyDependOnLibsWithTags: ['lib:contracts', 'lib:service-kit'] },
  { sourceTag: 'lib:persistence', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:internal-auth', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  // The one transport between services: credentials, correlation id, deadline, keep-alive, error shapes.
  { sourceTag: 'lib:internal-http', onlyDependOnLibsWithTags: ['lib:service-kit', 'lib:internal-auth'] },
  { sourceTag: 'lib:cloud-drive', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:email-source', onlyDependOnLibsWithTags: ['lib:service-kit'] },
  { sourceTag: 'lib:data-shield', onlyDependOnLibsWithTags: ['lib:service-kit', 'lib:internal-auth', 'lib:internal-http', 'lib:ner', 'lib:safe-regex'] },
  { sourceTag: 'lib:testing', onlyDependOnLibsWithTags: ['type:lib'] },
];

// Test files may also use the test-isolation helpers of libs/testing.
const testDepConstraints = depConstraints.map((c) => ({ ...c, onlyDependOnLibsWithTags: [...c.onlyDependOnLibsWithTags, 'lib:testing'] }));

const restricted = (names, message) => names.map((name) => ({ name, message }));

export default [
  { ignores: ['**/node_modules/**', 'dist/**', 'var/**', '.nx/**', '.tmp/**', 'coverage/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@nx/enforce-module-boundaries': ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', {
        paths: [
          ...restricted(['amqplib'], 'Only libs/messaging talks to RabbitMQ.'),
          ...restricted(['typeorm'], 'Only repositories, entities, migrations and libs/persistence import TypeORM.'),
        ],
      }],
    },
  },
  {
    files: ['libs/messaging/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: restricted(['typeorm'], 'messaging has no database.') }] },
  },
  {
    files: ['libs/persistence/**/*.ts', '**/*.entity.ts', '**/*.repository.ts', '**/migrations/*.ts', '**/*.int-spec.ts', 'libs/testing/**/*.ts', '**/data-source.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: restricted(['amqplib'], 'Only libs/messaging talks to RabbitMQ.') }] },
  },
  {
    // End-to-end tests poke the broker directly (raw and invalid messages).
    files: ['e2e/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: restricted(['typeorm'], 'e2e tests use the public interfaces.') }] },
  },
  {
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'e2e/**/*.ts', '**/test-support/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': ['error', { enforceBuildableLibDependency: false, allow: [], depConstraints: testDepConstraints }],
    },
  },
];

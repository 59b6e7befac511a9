import 'reflect-metadata';
import { closeDatabase } from '@docflow/persistence';
import { createLogger, loadConfigOrExit } from '@docflow/service-kit';
import { PublicApiConfig } from '../platform';
import { openPublicApiDatabase } from '../data-source';
import { runUserCreate } from '../identity';
import { UsersRepository } from '../identity';
import { UsersService } from '../identity';

/**
 * dist/apps/public-api/cli/user-create.js --email E --username U --password P [--super-admin]
 * Opens the configured database (creating it and migrating when needed) and creates one account.
 */
async function main(): Promise<number> {
  const config = loadConfigOrExit(PublicApiConfig, 'public-api user:create');
  const logger = createLogger({ service: 'public-api-cli', level: 'warn', format: config.LOG_FORMAT });
  const database = await openPublicApiDatabase(config.DATABASE_URL, logger);
  try {
    return await runUserCreate(process.argv.slice(2), new UsersService(new UsersRepository(database)), {
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    await closeDatabase(database);
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`user:create failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);

import { closeDatabase } from '@docflow/persistence';
import { createLogger, errorMessage, loadConfigOrExit, type Logger } from '@docflow/service-kit';
import { PublicApiConfig } from './platform';
import { openPublicApiDatabase, type PublicApiDatabase } from './data-source';

/**
 * Runs one CLI command of the public API (apps/public-api/src/cli): the validated config, the database
 * (created and migrated when needed), then `command`, whose number is the exit code; the database is
 * closed whatever happens, and a failure is one line on stderr with exit code 1.
 */
export function runCli(name: string, command: (deps: { config: PublicApiConfig; database: PublicApiDatabase; logger: Logger }) => Promise<number>): void {
  const main = async (): Promise<number> => {
    const config = loadConfigOrExit(PublicApiConfig, `public-api ${name}`);
    const logger = createLogger({ service: 'public-api-cli', level: 'warn', format: config.LOG_FORMAT });
    const database = await openPublicApiDatabase(config.DATABASE_URL, logger);
    try {
      return await command({ config, database, logger });
    } finally {
      await closeDatabase(database);
    }
  };
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${name} failed: ${errorMessage(err)}\n`);
      process.exitCode = 1;
    },
  );
}

import 'reflect-metadata';
import { runCli } from '../cli-runner';
import { runUserCreate, UsersRepository, UsersService } from '../identity';

/**
 * dist/apps/public-api/cli/user-create.js --email E --username U --password P [--super-admin]
 * Opens the configured database (creating it and migrating when needed) and creates one account.
 */
runCli('user:create', ({ database }) =>
  runUserCreate(process.argv.slice(2), new UsersService(new UsersRepository(database)), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }),
);

#!/usr/bin/env node
// `npm run user:create -- --email E --username U --password P [--super-admin]`:
// the same environment as `npm start` (.env, defaults), a build of the public
// API when its CLI is missing or older than the sources, then the CLI itself.
import { runPublicApiCli } from './lib/public-api-cli.mjs';

process.exit(await runPublicApiCli('user-create', process.argv.slice(2)));

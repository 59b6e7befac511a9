#!/usr/bin/env node
// `npm run credentials:rotate-key`: re-seals every stored credential value
// under CREDENTIALS_MASTER_KEY, reading the old ones with
// CREDENTIALS_MASTER_KEY_PREVIOUS (README, Rotating the credentials key).
import { runPublicApiCli } from './lib/public-api-cli.mjs';

process.exit(await runPublicApiCli('credentials-rotate-key', process.argv.slice(2)));

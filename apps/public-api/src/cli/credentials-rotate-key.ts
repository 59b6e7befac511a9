import 'reflect-metadata';
import { runCli } from '../cli-runner';
import { CredentialSealer, CredentialsRepository, rotateCredentialKeys } from '../identity';

/**
 * dist/apps/public-api/cli/credentials-rotate-key.js: re-seals every stored
 * credential value under CREDENTIALS_MASTER_KEY, reading the old ones with
 * CREDENTIALS_MASTER_KEY_PREVIOUS. Prints one JSON line of counts; exit 1 when
 * some value opens with neither key (keep CREDENTIALS_MASTER_KEY_PREVIOUS then).
 */
runCli('credentials:rotate-key', async ({ config, database, logger }) => {
  const sealer = new CredentialSealer(config.CREDENTIALS_MASTER_KEY, config.CREDENTIALS_MASTER_KEY_PREVIOUS);
  const report = await rotateCredentialKeys(new CredentialsRepository(database), sealer, logger);
  process.stdout.write(`${JSON.stringify({ key_id: sealer.keyId, ...report })}\n`);
  if (report.unreadable.length === 0) return 0;
  process.stderr.write(`${report.unreadable.length} credential value(s) open with neither CREDENTIALS_MASTER_KEY nor CREDENTIALS_MASTER_KEY_PREVIOUS\n`);
  return 1;
});

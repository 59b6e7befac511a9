import type { Logger } from '@docflow/service-kit';
import type { CredentialSealer } from './credential-sealer';
import type { CredentialsRepository } from './credentials.repository';

export interface RotationReport {
  /** Values read. */
  examined: number;
  /** Values re-sealed under the current key. */
  resealed: number;
  /** Values already under the current key. */
  current: number;
  /** Ids of values no configured key opens (left as they are). */
  unreadable: number[];
}

const PAGE = 200;

/**
 * `npm run credentials:rotate-key`: re-seals every credential value that is not
 * yet under CREDENTIALS_MASTER_KEY (one sealed under CREDENTIALS_MASTER_KEY_PREVIOUS,
 * or in the earlier v1 format), bound to its credential and owner. Each value is
 * replaced only if it did not change meanwhile, so a PUT during the rotation
 * wins; running it again re-seals nothing. A value that opens with neither key
 * is reported by id, never logged with its content, and left in place.
 */
export async function rotateCredentialKeys(repo: CredentialsRepository, sealer: CredentialSealer, logger: Logger): Promise<RotationReport> {
  const report: RotationReport = { examined: 0, resealed: 0, current: 0, unreadable: [] };
  for (let afterId = 0; ;) {
    const rows = await repo.sealedPage(afterId, PAGE);
    if (rows.length === 0) return report;
    for (const row of rows) {
      report.examined += 1;
      afterId = row.id;
      if (!sealer.needsReseal(row.sealed)) {
        report.current += 1;
        continue;
      }
      const binding = { credentialId: row.id, ownerId: row.ownerId };
      let fields: Record<string, string>;
      try {
        fields = sealer.open(row.sealed, binding);
      } catch {
        report.unreadable.push(row.id);
        logger.warn('credential value opens with no configured key; left as it is', { credential_id: row.id });
        continue;
      }
      if (await repo.replaceSealed(row.id, row.sealed, sealer.seal(fields, binding))) report.resealed += 1;
      else report.current += 1;
    }
  }
}

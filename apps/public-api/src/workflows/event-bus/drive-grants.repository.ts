import type { DriveGrantStore, StoredDriveGrant } from '@docflow/cloud-drive';
import type { MailboxCursor, EmailCursorStore } from '@docflow/email-source';
import type { PublicApiDatabase } from '../../platform';

interface GrantRow {
  sealed_tokens: string;
  status: StoredDriveGrant['status'];
  error_message: string | null;
  updated_at: Date;
}

/** A user's drive grant (libs/cloud-drive DriveGrantStore): the tokens only ever sealed with the credentials key, bound to the user. */
export class DriveGrantsRepository implements DriveGrantStore {
  constructor(private readonly database: PublicApiDatabase) {}

  async get(userId: number): Promise<StoredDriveGrant | null> {
    const rows = (await this.database.query('SELECT sealed_tokens, status, error_message, updated_at FROM cloud_drive_grants WHERE user_id = $1', [userId])) as GrantRow[];
    const row = rows[0];
    return row ? { sealedTokens: row.sealed_tokens, status: row.status, errorMessage: row.error_message, updatedAt: row.updated_at } : null;
  }

  async save(userId: number, grant: StoredDriveGrant): Promise<void> {
    await this.database.query(
      `INSERT INTO cloud_drive_grants (user_id, sealed_tokens, status, error_message, updated_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id) DO UPDATE SET sealed_tokens = EXCLUDED.sealed_tokens, status = EXCLUDED.status, error_message = EXCLUDED.error_message, updated_at = EXCLUDED.updated_at`,
      [userId, grant.sealedTokens, grant.status, grant.errorMessage, grant.updatedAt],
    );
  }

  async delete(userId: number): Promise<void> {
    await this.database.query('DELETE FROM cloud_drive_grants WHERE user_id = $1', [userId]);
  }
}

/** Where an e-mail source has read each mailbox to (libs/email-source EmailCursorStore). */
export class EmailCursorsRepository implements EmailCursorStore {
  constructor(private readonly database: PublicApiDatabase) {}

  async get(sourceId: number, mailbox: string): Promise<MailboxCursor | null> {
    const rows = (await this.database.query('SELECT uid_validity, last_uid FROM email_source_cursors WHERE source_id = $1 AND mailbox = $2', [sourceId, mailbox])) as {
      uid_validity: string;
      last_uid: string;
    }[];
    const row = rows[0];
    return row ? { uidValidity: row.uid_validity, lastUid: Number(row.last_uid) } : null;
  }

  async set(sourceId: number, mailbox: string, cursor: MailboxCursor): Promise<void> {
    await this.database.query(
      `INSERT INTO email_source_cursors (source_id, mailbox, uid_validity, last_uid) VALUES ($1, $2, $3, $4)
       ON CONFLICT (source_id, mailbox) DO UPDATE SET uid_validity = EXCLUDED.uid_validity, last_uid = EXCLUDED.last_uid`,
      [sourceId, mailbox, cursor.uidValidity, cursor.lastUid],
    );
  }
}

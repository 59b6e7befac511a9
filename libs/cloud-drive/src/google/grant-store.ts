/**
 * Seals and opens a user's token fields, bound to the user (AES-256-GCM with
 * the credentials key and the owner id as associated data). The public API's
 * `CredentialSealer` (AES-256-GCM, key ids, `CREDENTIALS_MASTER_KEY` rotation) binds each value to a
 * credential id and owner; phase 2 adapts it to this shape, binding a grant to its user.
 */
export interface DriveTokenSealer {
  seal(fields: Readonly<Record<string, string>>, ownerId: number): string;
  /** Throws when the value was not sealed by this key for this owner. */
  open(sealed: string, ownerId: number): Record<string, string>;
}

export type DriveGrantStatus = 'connected' | 'needs_reconnect';

/** A user's drive grant as stored: tokens only ever sealed. */
export interface StoredDriveGrant {
  /** `DriveTokenSealer.seal` of {access_token, refresh_token, expires_at (epoch ms), scope}. */
  sealedTokens: string;
  status: DriveGrantStatus;
  /** Why the grant needs reconnecting (shown as the sources' `error_message`). */
  errorMessage: string | null;
  updatedAt: Date;
}

/**
 * Where grants live. The public API implements it in a repository over a
 * table such as `cloud_drive_grants (user_id integer PRIMARY KEY REFERENCES
 * users ON DELETE CASCADE, provider text, sealed_tokens text, status text,
 * error_message text, updated_at timestamptz)` (event-bus phase 2).
 */
export interface DriveGrantStore {
  get(userId: number): Promise<StoredDriveGrant | null>;
  /** Inserts or replaces the user's grant. */
  save(userId: number, grant: StoredDriveGrant): Promise<void>;
  delete(userId: number): Promise<void>;
}

/** For tests and single-process runs. */
export class InMemoryDriveGrantStore implements DriveGrantStore {
  readonly grants = new Map<number, StoredDriveGrant>();

  async get(userId: number): Promise<StoredDriveGrant | null> {
    return this.grants.get(userId) ?? null;
  }

  async save(userId: number, grant: StoredDriveGrant): Promise<void> {
    this.grants.set(userId, grant);
  }

  async delete(userId: number): Promise<void> {
    this.grants.delete(userId);
  }
}

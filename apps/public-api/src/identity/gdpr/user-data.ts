import type { Readable } from 'node:stream';

/** One stored file of the user's, copied into the export archive under `path`. */
export interface UserFile {
  /** Path inside the archive, below the holder's folder (e.g. `files/12-report.pdf`). */
  path: string;
  bytes: number;
  mimeType: string;
  open(): Promise<Readable>;
}

/** What one module holds about a user: named JSON sections (each an array of records) and files. */
export interface UserDataCopy {
  sections: Record<string, readonly unknown[]>;
  files?: UserFile[];
}

/** What a module removed for one user, by kind (rows, stored objects, watches stopped, ...). */
export type RemovedCounts = Record<string, number>;

/**
 * A module's part in the GDPR requests of issue #18 (spec 2.19 and 8): it
 * copies what it holds about a user into an export, and removes all of it
 * when the account is deleted. Each module of the public API exports one
 * from its index; the composition root hands them to identity's gdpr
 * feature, so that identity imports no module that depends on it.
 *
 * `purgeUser` is idempotent: a deletion interrupted half-way runs again
 * from the start. Its counts are what the `service.cascade_delete` audit
 * row records (ids and counts only, no personal data).
 */
export interface UserDataHolder {
  /** The service named in `service.cascade_delete` rows and the archive folder, e.g. `documents`. */
  service: string;
  exportUser(userId: number): Promise<UserDataCopy>;
  purgeUser(userId: number): Promise<RemovedCounts>;
}

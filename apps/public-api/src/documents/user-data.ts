import type { StorageDriver } from '@docflow/storage';
import type { UserDataHolder, UserFile } from '../identity';
import type { PublicApiDatabase } from '../platform';
import { DocumentsUserDataRepository, type OwnedFile } from './user-data.repository';

export interface DocumentsUserDataDeps {
  database: PublicApiDatabase;
  storage: StorageDriver;
  /** The router's records of the user's classification jobs (the platform's RouterClient.purgeJobs). */
  purgeRouterJobs(jobIds: readonly string[]): Promise<number>;
}

const extension = (name: string | null) => /\.([A-Za-z0-9]{1,10})$/.exec(name ?? '')?.[1] ?? 'bin';
const baseName = (name: string | null, title: string) => (name ?? title).replace(/\.[A-Za-z0-9]{1,10}$/, '');

function filesOf(doc: OwnedFile, storage: StorageDriver): UserFile[] {
  const name = baseName(doc.originalFilename, doc.title);
  const files: UserFile[] = [];
  if (doc.originalStorageKey) {
    // A converted upload (DOCX served as PDF): the file as uploaded, and what the document shows.
    const originalKey = doc.originalStorageKey;
    files.push({
      path: `files/${doc.id}-${name}.${extension(doc.originalFilename)}`,
      bytes: doc.storageBytes - doc.fileSize,
      mimeType: doc.originalMimeType ?? 'application/octet-stream',
      open: () => storage.get(originalKey),
    });
    files.push({ path: `files/${doc.id}-${name}.pdf`, bytes: doc.fileSize, mimeType: doc.mimeType, open: () => storage.get(doc.storageKey) });
  } else {
    files.push({ path: `files/${doc.id}-${name}.${extension(doc.originalFilename)}`, bytes: doc.fileSize, mimeType: doc.mimeType, open: () => storage.get(doc.storageKey) });
  }
  return files;
}

/**
 * The documents module's part in data exports and account deletions (issue
 * #18): documents with their files, collections, prompts, classification
 * jobs and storage usage; a deletion removes the router's records of the
 * classification jobs, the stored files, then the rows (chunks and
 * collection links go with them).
 */
export function documentsUserData(deps: DocumentsUserDataDeps): UserDataHolder {
  const repo = new DocumentsUserDataRepository(deps.database);
  return {
    service: 'documents',
    async exportUser(userId) {
      return {
        sections: {
          documents: await repo.documents(userId),
          collections: await repo.collections(userId),
          prompts: await repo.prompts(userId),
          classification_jobs: await repo.classificationJobs(userId),
          storage_usage: await repo.storageUsage(userId),
        },
        files: (await repo.files(userId)).flatMap((doc) => filesOf(doc, deps.storage)),
      };
    },
    async purgeUser(userId) {
      const jobIds = await repo.classificationJobIds(userId);
      const routerJobs = await deps.purgeRouterJobs(jobIds);
      // Files first: a run cut short after them finds the rows (and their keys) again.
      const storageKeys = (await repo.files(userId)).flatMap((d) => [d.storageKey, ...(d.originalStorageKey ? [d.originalStorageKey] : [])]);
      for (const key of storageKeys) await deps.storage.delete(key);
      const counts = await repo.deleteAll(userId);
      return { ...counts, storedFiles: storageKeys.length, routerJobs };
    },
  };
}

import type { UserDataHolder } from '../identity';
import type { PublicApiDatabase } from '../platform';
import { RagUserDataRepository } from './user-data.repository';

/**
 * RAG's part in data exports and account deletions (issue #18): chunks are
 * derived from the user's documents (whose files the export holds), so the
 * export lists how many each document has; a deletion removes them all,
 * also those of a document deleted in the same run.
 */
export function ragUserData(deps: { database: PublicApiDatabase }): UserDataHolder {
  const repo = new RagUserDataRepository(deps.database);
  return {
    service: 'rag',
    exportUser: async (userId) => ({ sections: { indexed_documents: await repo.chunkCounts(userId) } }),
    purgeUser: async (userId) => ({ chunks: await repo.deleteChunks(userId) }),
  };
}

import { deleteUserRows, type PublicApiDatabase } from '../platform';

/** RAG's rows of one user (issue #18): chunks carry their owner beside their document. */
export class RagUserDataRepository {
  constructor(private readonly ds: PublicApiDatabase) {}

  chunkCounts(userId: number): Promise<Record<string, unknown>[]> {
    return this.ds.query('SELECT document_id, count(*)::int AS chunks, max(embedding_model) AS embedding_model FROM rag_chunks WHERE owner_id = $1 GROUP BY document_id ORDER BY document_id', [
      userId,
    ]) as Promise<Record<string, unknown>[]>;
  }

  deleteChunks(userId: number): Promise<number> {
    return deleteUserRows(this.ds, 'rag_chunks', userId);
  }
}

// The RAG module: chunking, indexing, retrieval and answers over documents. What the rest of the public API uses of it:
import { CreateRagChunks1764000000050 } from './migrations/1764000000050-CreateRagChunks';
import { RagPgvector1764000000051 } from './migrations/1764000000051-RagPgvector';
import { RagEmbeddingBytes1764000000052 } from './migrations/1764000000052-RagEmbeddingBytes';
import { RagChunkStorage1764000000053 } from './migrations/1764000000053-RagChunkStorage';

export { createRagModule } from './rag.module';
export type { RagBroker, RagModule, RagModuleDeps } from './rag.module';
export { RAG_INDEX_QUEUE, RagIndexJobV1 } from './rag-index-job';
export type { RagAnswer, RagSource, EnableResult, RagStatusView } from './rag.service';

/** RAG's tables (chunks, term statistics) are written with SQL of its repositories: no entities. */
export const RAG_ENTITIES = [] as const;
export const RAG_MIGRATIONS = [CreateRagChunks1764000000050, RagPgvector1764000000051, RagEmbeddingBytes1764000000052, RagChunkStorage1764000000053];
export { ragUserData } from './user-data';

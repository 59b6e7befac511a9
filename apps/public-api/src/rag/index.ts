// What the rest of the public API (app.ts, main.ts) uses from RAG.
export { createRagModule } from './rag.module';
export type { RagBroker, RagModule, RagModuleDeps } from './rag.module';
export { RAG_INDEX_QUEUE, RagIndexJobV1 } from './rag-index-job';
export type { RagAnswer, RagSource, EnableResult, RagStatusView } from './rag.service';

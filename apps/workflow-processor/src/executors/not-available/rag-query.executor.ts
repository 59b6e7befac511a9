import { notAvailableExecutor } from './not-available';

/** `rag_query_task`: not in this build yet; a later issue replaces this file with the real executor. */
export const ragQueryExecutor = notAvailableExecutor('rag_query_task');

import { notAvailableExecutor } from './not-available';

/** `rag_enable_task`: not in this build yet; a later issue replaces this file with the real executor. */
export const ragEnableExecutor = notAvailableExecutor('rag_enable_task');

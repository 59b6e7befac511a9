import { notAvailableExecutor } from './not-available';

/** `llm_task`: not in this build yet; a later issue replaces this file with the real executor. */
export const llmExecutor = notAvailableExecutor('llm_task');

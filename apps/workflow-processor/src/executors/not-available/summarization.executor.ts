import { notAvailableExecutor } from './not-available';

/** `summarization_task`: not in this build yet; a later issue replaces this file with the real executor. */
export const summarizationExecutor = notAvailableExecutor('summarization_task');

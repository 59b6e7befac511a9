import { notAvailableExecutor } from './not-available';

/** `extraction_task`: not in this build yet; a later issue replaces this file with the real executor. */
export const extractionExecutor = notAvailableExecutor('extraction_task');

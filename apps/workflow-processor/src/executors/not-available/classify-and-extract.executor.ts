import { notAvailableExecutor } from './not-available';

/** `classify_and_extract`: not in this build yet; a later issue replaces this file with the real executor. */
export const classifyAndExtractExecutor = notAvailableExecutor('classify_and_extract');

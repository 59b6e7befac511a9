import { notAvailableExecutor } from './not-available';

/** `classification_task`: not in this build yet; a later issue replaces this file with the real executor. */
export const classificationExecutor = notAvailableExecutor('classification_task');

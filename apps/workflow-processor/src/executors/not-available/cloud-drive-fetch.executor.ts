import { notAvailableExecutor } from './not-available';

/** `cloud_drive_fetch_task`: not in this build yet; a later issue replaces this file with the real executor. */
export const cloudDriveFetchExecutor = notAvailableExecutor('cloud_drive_fetch_task');

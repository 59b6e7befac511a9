import type { DriveFile } from '../drive-provider';

export type DriveEventType = 'file_created' | 'file_modified';

/** The source a drive event belongs to, as far as the event's inputs need it. */
export interface DriveEventSource {
  id: number;
  /** `drive_item_id`: the watched folder. */
  folderId: string;
  /** `drive_item_name`. */
  folderName: string;
}

/** A settled, de-duplicated file event (one per file and version, per source). */
export interface SettledFileEvent {
  /** Spec 2.1: event ids are strings. */
  eventId: string;
  sourceId: number;
  eventType: DriveEventType;
  file: DriveFile;
  /** When it settled (the event log's `received_at`). */
  occurredAt: Date;
}

/**
 * The event payload that subscription filters are matched against (spec
 * 2.17): the file's fields under the names of the inputs of 4.10, plus size
 * and version.
 */
export function driveEventPayload(event: SettledFileEvent, source: DriveEventSource): Record<string, unknown> {
  return {
    event_id: event.eventId,
    event_type: event.eventType,
    file_id: event.file.id,
    file_name: event.file.name,
    file_mime_type: event.file.mimeType,
    file_size: event.file.size,
    file_version: event.file.version,
    file_web_link: event.file.webLink,
    folder_id: source.folderId,
    folder_name: source.folderName,
  };
}

/**
 * The inputs a matched subscription's workflow starts with (spec 4.10):
 * `trigger_type`, `event_id`, `event_source`, `event_type`, `file_id`,
 * `file_name`, `file_mime_type`, `file_web_link`, `folder_id`,
 * `folder_name` and `file_document_id` (the file already stored as a
 * document of the source's owner). The subscription's `input_mapping` is
 * applied on top by the caller.
 */
export function driveWorkflowInputs(event: SettledFileEvent, source: DriveEventSource, documentId: number): Record<string, unknown> {
  return {
    trigger_type: 'event',
    event_id: event.eventId,
    event_source: 'cloud_drive',
    event_type: event.eventType,
    file_id: event.file.id,
    file_name: event.file.name,
    file_mime_type: event.file.mimeType,
    file_web_link: event.file.webLink,
    folder_id: source.folderId,
    folder_name: source.folderName,
    file_document_id: documentId,
  };
}

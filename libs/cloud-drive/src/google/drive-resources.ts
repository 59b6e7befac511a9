import { DriveProtocolError } from '../drive-errors';
import type { ChangePage, DriveChange, DriveFile } from '../drive-provider';
import { FOLDER_MIME_TYPE } from '../mime-types';

/** The file fields Docflow asks Google for (`fields=`), so answers stay small. */
export const FILE_FIELDS = 'id,name,mimeType,size,version,parents,modifiedTime,webViewLink,trashed';
export const CHANGE_FIELDS = `nextPageToken,newStartPageToken,changes(fileId,removed,file(${FILE_FIELDS}))`;

/** Native Google Docs, Sheets, Slides...: no bytes to download with `alt=media`. */
export function isGoogleNative(mimeType: string): boolean {
  return mimeType.startsWith('application/vnd.google-apps.') && mimeType !== FOLDER_MIME_TYPE;
}

interface FileResource {
  id?: unknown;
  name?: unknown;
  mimeType?: unknown;
  size?: unknown;
  version?: unknown;
  parents?: unknown;
  modifiedTime?: unknown;
  webViewLink?: unknown;
  trashed?: unknown;
}

/** A Drive v3 file resource (int64 fields come as strings) as a DriveFile. */
export function toDriveFile(raw: unknown): DriveFile {
  const r = (raw ?? {}) as FileResource;
  if (typeof r.id !== 'string' || typeof r.name !== 'string' || typeof r.mimeType !== 'string') {
    throw new DriveProtocolError('Google Drive sent a file without id, name or mimeType');
  }
  const size = Number(r.size ?? 0);
  return {
    id: r.id,
    name: r.name,
    mimeType: r.mimeType,
    size: Number.isFinite(size) ? size : 0,
    version: r.version === undefined ? '' : String(r.version),
    parentIds: Array.isArray(r.parents) ? r.parents.filter((p): p is string => typeof p === 'string') : [],
    modifiedTime: typeof r.modifiedTime === 'string' ? r.modifiedTime : new Date(0).toISOString(),
    webLink: typeof r.webViewLink === 'string' ? r.webViewLink : null,
    isFolder: r.mimeType === FOLDER_MIME_TYPE,
  };
}

export function isTrashed(raw: unknown): boolean {
  return (raw as FileResource | null)?.trashed === true;
}

/**
 * A `changes.list` answer as a ChangePage of the files directly in
 * `folderId`: changes elsewhere in the account are left out, trashed files
 * count as removed, folders are left out.
 */
export function toChangePage(raw: unknown, folderId: string): ChangePage {
  const body = (raw ?? {}) as { changes?: unknown; nextPageToken?: unknown; newStartPageToken?: unknown };
  if (!Array.isArray(body.changes)) throw new DriveProtocolError('Google Drive sent a change list without changes');
  const changes: DriveChange[] = [];
  for (const entry of body.changes as { fileId?: unknown; removed?: unknown; file?: unknown }[]) {
    if (typeof entry.fileId !== 'string') continue;
    if (entry.removed === true || !entry.file || isTrashed(entry.file)) {
      changes.push({ fileId: entry.fileId, removed: true, file: null });
      continue;
    }
    const file = toDriveFile(entry.file);
    if (file.isFolder || !file.parentIds.includes(folderId)) continue;
    changes.push({ fileId: file.id, removed: false, file });
  }
  return {
    changes,
    ...(typeof body.nextPageToken === 'string' ? { nextPageToken: body.nextPageToken } : {}),
    ...(typeof body.newStartPageToken === 'string' ? { newStartPageToken: body.newStartPageToken } : {}),
  };
}

/** A string literal of the Drive query language: backslash and single quote escaped. */
export function queryLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

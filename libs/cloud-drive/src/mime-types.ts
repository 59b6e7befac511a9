import path from 'node:path';

/** The types of 2.14's default accepted list and a few more, by extension; the public API sniffs the content when it stores a file. */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.pdf': 'application/pdf',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.csv': 'text/csv',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.eml': 'message/rfc822',
  '.doc': 'application/msword',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.xls': 'application/vnd.ms-excel',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.ppt': 'application/vnd.ms-powerpoint',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.zip': 'application/zip',
};

export const FOLDER_MIME_TYPE = 'application/vnd.google-apps.folder';
export const OCTET_STREAM = 'application/octet-stream';

/** The MIME type a file name suggests; `application/octet-stream` when unknown. */
export function mimeTypeFromName(name: string): string {
  return BY_EXTENSION[path.extname(name).toLowerCase()] ?? OCTET_STREAM;
}

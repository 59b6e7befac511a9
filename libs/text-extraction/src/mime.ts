/** The MIME types Docflow accepts for uploads by default (interface spec 2.14). */
export const ACCEPTED_MIME_TYPES = [
  'application/pdf',
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
  'text/plain',
  'text/csv',
  'application/json',
  'application/msword',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.ms-excel',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
] as const;

export type AcceptedMimeType = (typeof ACCEPTED_MIME_TYPES)[number];

export const DOCX_MIME = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The file extension (without dot) Docflow uses for each accepted type. */
export const EXTENSION_BY_MIME: Readonly<Record<AcceptedMimeType, string>> = Object.freeze({
  'application/pdf': 'pdf',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/json': 'json',
  'application/msword': 'doc',
  [DOCX_MIME]: 'docx',
  'application/vnd.ms-excel': 'xls',
  [XLSX_MIME]: 'xlsx',
});

/** `Text/Plain; charset=utf-8` → `text/plain`; undefined when not an accepted type. */
export function normaliseMimeType(mime: string): AcceptedMimeType | undefined {
  const bare = mime.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return (ACCEPTED_MIME_TYPES as readonly string[]).includes(bare) ? (bare as AcceptedMimeType) : undefined;
}

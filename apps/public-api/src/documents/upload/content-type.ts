import { open, readFile } from 'node:fs/promises';
import { type AcceptedMimeType, sniffMime, type SniffedType } from '@docflow/text-extraction';
import { extensionOf } from '../filenames';

const HEAD_BYTES = 64 * 1024;

/** Types recognised from their first bytes alone; anything else needs the whole file (zip and OLE2 directories, text). */
function decidedByHead(head: Buffer): boolean {
  const latin = head.toString('latin1', 0, Math.min(head.length, 16));
  return (
    latin.startsWith('%PDF-') ||
    latin.startsWith('\x89PNG\r\n\x1a\n') ||
    latin.startsWith('\xff\xd8\xff') ||
    latin.startsWith('GIF87a') ||
    latin.startsWith('GIF89a') ||
    (latin.startsWith('RIFF') && latin.slice(8, 12) === 'WEBP')
  );
}

/** Files up to this size are read once, whole. */
const SMALL_FILE_BYTES = 1024 * 1024;

/**
 * The type of an uploaded file judged from its content (never from the
 * client's header); undefined when it is not an accepted type. Large PDFs and
 * images are judged from their first 64 KiB; office files and text need the
 * whole file (zip and OLE2 directories, UTF-8 validity).
 */
export async function sniffFile(path: string, declaredName: string | undefined): Promise<SniffedType | undefined> {
  const handle = await open(path, 'r');
  let head: Buffer;
  try {
    const size = (await handle.stat()).size;
    if (size <= SMALL_FILE_BYTES) return sniffMime(await handle.readFile(), declaredName);
    head = Buffer.alloc(HEAD_BYTES);
    await handle.read(head, 0, HEAD_BYTES, 0);
  } finally {
    await handle.close();
  }
  if (decidedByHead(head)) return sniffMime(head, declaredName);
  return sniffMime(await readFile(path), declaredName);
}

const TEXTUAL: readonly AcceptedMimeType[] = ['text/plain', 'text/csv', 'application/json'];
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ZIP_ALIASES = ['application/zip', 'application/x-zip-compressed', 'application/x-zip'];
const XLS_ALIASES = ['application/vnd.ms-excel', 'application/excel', 'application/x-excel', 'application/x-msexcel'];

/** What clients (browsers, curl, OS type tables) may declare for content of each binary type. */
const BINARY_ALIASES: Partial<Record<AcceptedMimeType, readonly string[]>> = {
  'application/pdf': ['application/pdf', 'application/x-pdf', 'application/acrobat'],
  'image/png': ['image/png', 'image/x-png'],
  'image/jpeg': ['image/jpeg', 'image/jpg', 'image/pjpeg'],
  'image/gif': ['image/gif'],
  'image/webp': ['image/webp'],
  'application/msword': ['application/msword', 'application/vnd.ms-word', 'application/doc'],
  'application/vnd.ms-excel': XLS_ALIASES,
  [DOCX]: [DOCX, ...ZIP_ALIASES],
  [XLSX]: [XLSX, ...ZIP_ALIASES],
};

/** Declarations that claim nothing about the content. */
const NO_CLAIM = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown', 'application/x-unknown']);

function declaredFits(sniffed: AcceptedMimeType, declared: string): boolean {
  if (NO_CLAIM.has(declared)) return true;
  if (TEXTUAL.includes(sniffed)) {
    if (declared.startsWith('text/')) return true;
    if (declared === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(declared)) return true;
    if (declared === 'application/xml' || /^application\/[a-z0-9.+-]+\+xml$/.test(declared)) return true;
    // Browsers on Windows declare .csv files as Excel.
    if (sniffed === 'text/csv' && ['application/csv', 'application/x-csv', ...XLS_ALIASES].includes(declared)) return true;
    return false;
  }
  return (BINARY_ALIASES[sniffed] ?? [sniffed]).includes(declared);
}

/** Filename extensions and the types their content may have. */
const EXTENSION_TYPES: Record<string, readonly AcceptedMimeType[]> = {
  pdf: ['application/pdf'],
  png: ['image/png'],
  jpg: ['image/jpeg'],
  jpeg: ['image/jpeg'],
  jpe: ['image/jpeg'],
  gif: ['image/gif'],
  webp: ['image/webp'],
  txt: TEXTUAL,
  text: TEXTUAL,
  md: TEXTUAL,
  log: TEXTUAL,
  csv: TEXTUAL,
  tsv: TEXTUAL,
  json: TEXTUAL,
  doc: ['application/msword'],
  docx: [DOCX],
  xls: ['application/vnd.ms-excel'],
  xlsx: [XLSX],
};

/**
 * Why the client's claims contradict the sniffed content (a text file sent as
 * `image/png` or named `.png`), or undefined when they fit. Generic types
 * (`application/octet-stream`) and unknown extensions claim nothing.
 */
export function contentTypeProblem(sniffed: AcceptedMimeType, declaredMime: string | undefined, filename: string | undefined): string | undefined {
  const declared = (declaredMime ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (!declaredFits(sniffed, declared)) return `the declared Content-Type ${declared.slice(0, 100)} does not match the content, which is ${sniffed}`;
  const ext = extensionOf(filename);
  const allowed = EXTENSION_TYPES[ext];
  if (allowed && !allowed.includes(sniffed)) return `the file extension .${ext.slice(0, 20)} does not match the content, which is ${sniffed}`;
  return undefined;
}

import { type AcceptedMimeType, DOCX_MIME, EXTENSION_BY_MIME, XLSX_MIME } from './mime';
import { isOle2, ole2RootStreamNames } from './ole2';
import { listZipEntries, readZipEntry } from './zip-entries';

export interface SniffedType {
  mime: AcceptedMimeType;
  ext: string;
}

const MAX_CONTENT_TYPES_BYTES = 1024 * 1024;
const DOCX_MAIN = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';
const XLSX_MAIN = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';

function startsWith(buf: Buffer, bytes: number[], at = 0): boolean {
  return buf.length >= at + bytes.length && bytes.every((b, i) => buf[at + i] === b);
}

function ascii(buf: Buffer, at: number, text: string): boolean {
  return buf.length >= at + text.length && buf.toString('latin1', at, at + text.length) === text;
}

function sniffOfficeZip(buf: Buffer): AcceptedMimeType | undefined {
  const entries = listZipEntries(buf);
  if (!entries) return undefined;
  const byName = new Map(entries.map((e) => [e.name, e]));
  const contentTypesEntry = byName.get('[Content_Types].xml');
  if (!contentTypesEntry) return undefined;
  let candidate: AcceptedMimeType;
  let mainType: string;
  if (byName.has('word/document.xml')) [candidate, mainType] = [DOCX_MIME, DOCX_MAIN];
  else if (byName.has('xl/workbook.xml')) [candidate, mainType] = [XLSX_MIME, XLSX_MAIN];
  else return undefined;
  // The declared main part type tells a .docx from a macro-enabled .docm or a
  // .dotx template, which share the layout but are not accepted types.
  const contentTypes = readZipEntry(buf, contentTypesEntry, MAX_CONTENT_TYPES_BYTES);
  if (!contentTypes || !contentTypes.toString('utf8').includes(mainType)) return undefined;
  return candidate;
}

function sniffOle2(buf: Buffer): AcceptedMimeType | undefined {
  const names = ole2RootStreamNames(buf);
  if (!names) return undefined;
  if (names.includes('WordDocument')) return 'application/msword';
  if (names.includes('Workbook') || names.includes('Book')) return 'application/vnd.ms-excel';
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The text when buf is UTF-8 without NULs or control characters other than tab, newline, CR, FF and VT. */
function asText(buf: Buffer): string | undefined {
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    return undefined;
  }
  if (/[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f]/.test(text)) return undefined;
  return text;
}

function extensionOf(name: string | undefined): string {
  const match = name ? /\.([^./\\]+)$/.exec(name) : null;
  return match?.[1]?.toLowerCase() ?? '';
}

function sniffText(buf: Buffer, declaredName: string | undefined): AcceptedMimeType | undefined {
  const text = asText(buf);
  if (text === undefined) return undefined;
  const ext = extensionOf(declaredName);
  const trimmed = text.trim();
  // Any text is a valid one-column CSV, and `42` is valid JSON: the name decides
  // between them, the content must agree (JSON parses; CSV is text).
  if (ext === 'json' || trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      JSON.parse(trimmed);
      return 'application/json';
    } catch {
      // Not JSON after all: plain text (or CSV below).
    }
  }
  if (ext === 'csv') return 'text/csv';
  return 'text/plain';
}

/**
 * The type of a file judged from its content, for Docflow's accepted types
 * (interface spec 2.14), or undefined when it is none of them. Pass the whole
 * file: OOXML and OLE2 are recognised from their directories, text by decoding
 * all of it. declaredName (the client's filename) only chooses between text
 * types (`.csv`, `.json`); it never makes binary content pass as something else.
 */
export function sniffMime(buffer: Buffer, declaredName?: string): SniffedType | undefined {
  const mime = sniffBytes(buffer, declaredName);
  return mime === undefined ? undefined : { mime, ext: EXTENSION_BY_MIME[mime] };
}

function sniffBytes(buf: Buffer, declaredName: string | undefined): AcceptedMimeType | undefined {
  if (buf.length === 0) return undefined;
  if (ascii(buf, 0, '%PDF-')) return 'application/pdf';
  if (startsWith(buf, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) && ascii(buf, 12, 'IHDR')) return 'image/png';
  if (startsWith(buf, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (ascii(buf, 0, 'GIF87a') || ascii(buf, 0, 'GIF89a')) return 'image/gif';
  if (ascii(buf, 0, 'RIFF') && ascii(buf, 8, 'WEBP')) return 'image/webp';
  if (startsWith(buf, [0x50, 0x4b, 0x03, 0x04])) return sniffOfficeZip(buf);
  if (isOle2(buf)) return sniffOle2(buf);
  return sniffText(buf, declaredName);
}

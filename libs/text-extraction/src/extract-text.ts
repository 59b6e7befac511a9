import { readFile, stat } from 'node:fs/promises';
import { ExtractionInputTooLargeError, TextExtractionError, UnsupportedDocumentTypeError } from './errors';
import { imageSize } from './image-size';
import { type AcceptedMimeType, normaliseMimeType } from './mime';
import { ocrImage } from './ocr';
import { parseInWorker } from './parser-worker';
import { inspectZip } from '@docflow/safe-zip';

export interface ExtractTextOptions {
  /** Largest input accepted; default 50 MiB. */
  maxBytes?: number;
  /** PDF pages read at most; default 1000. */
  maxPages?: number;
  /** Characters of text returned at most; default 2,000,000. */
  maxChars?: number;
  /** For one parse or OCR run; default 60 s. */
  timeoutMs?: number;
  /** Heap cap of the PDF/DOCX parser worker; default 512 MB. */
  parserMemoryMb?: number;
  /** Tesseract language(s), e.g. `eng` or `eng+deu`; default `eng`. */
  ocrLanguage?: string;
  /** Images with more pixels are refused before OCR; default 50 megapixels. */
  maxImagePixels?: number;
  /** DOCX parts may expand to this many bytes in all; default 200 MiB. */
  maxDocxUncompressedBytes?: number;
  /** Default `tesseract` (from PATH). */
  tesseractPath?: string;
}

export interface ExtractedPage {
  /** 1-based. */
  page: number;
  text: string;
}

export interface ExtractTextResult {
  text: string;
  /** Per page for PDFs, for DOCX with explicit page breaks, and for images (one page); otherwise null. */
  pages: ExtractedPage[] | null;
  mime: AcceptedMimeType;
  /** True when a cap (maxPages, maxChars) cut the text short. */
  truncated: boolean;
}

const DEFAULTS = {
  maxBytes: 50 * 1024 * 1024,
  maxPages: 1000,
  maxChars: 2_000_000,
  timeoutMs: 60_000,
  parserMemoryMb: 512,
  ocrLanguage: 'eng',
  maxImagePixels: 50_000_000,
  maxDocxUncompressedBytes: 200 * 1024 * 1024,
  tesseractPath: 'tesseract',
} satisfies Required<ExtractTextOptions>;

type Settings = Required<ExtractTextOptions>;

const PAGE_SEPARATOR = '\n\n';

/** s cut to at most n UTF-16 units, without splitting a surrogate pair. */
function cut(s: string, n: number): string {
  if (s.length <= n) return s;
  const code = s.charCodeAt(n - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}

/** Joins page texts with blank lines, keeping the whole text within maxChars (pages cut or dropped to fit). */
function assemble(pageTexts: string[], maxChars: number, alreadyTruncated: boolean): { text: string; pages: ExtractedPage[]; truncated: boolean } {
  const pages: ExtractedPage[] = [];
  let text = '';
  let truncated = alreadyTruncated;
  for (const [i, raw] of pageTexts.entries()) {
    const separator = i === 0 ? '' : PAGE_SEPARATOR;
    const room = maxChars - text.length - separator.length;
    if (room <= 0) {
      truncated = true;
      break;
    }
    const pageText = cut(raw, room);
    if (pageText.length < raw.length) truncated = true;
    pages.push({ page: i + 1, text: pageText });
    text += separator + pageText;
    if (truncated) break;
  }
  return { text, pages, truncated };
}

function decodeUtf8(buf: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    throw new TextExtractionError('The text is not valid UTF-8');
  }
}

/**
 * A DOCX is inflated once in a worker thread, counting bytes (libs/safe-zip),
 * before the parser sees it: the parser inflates what the archive declares,
 * and declarations lie.
 */
async function checkDocxArchive(buf: Buffer, settings: Settings): Promise<void> {
  const inspection = await inspectZip({ buffer: buf }, { limits: { maxEntries: 2000, maxTotalInflatedBytes: settings.maxDocxUncompressedBytes, timeoutMs: settings.timeoutMs } });
  if (!inspection.ok) {
    if (inspection.reason === 'not_a_zip') throw new TextExtractionError('The Word document is not a readable zip archive', inspection.message);
    throw new TextExtractionError(`The Word document was refused: ${inspection.message}`, inspection.reason);
  }
  if (!inspection.entries.some((e) => e.name === 'word/document.xml')) throw new TextExtractionError('The Word document has no word/document.xml');
}

async function extractPdf(buf: Buffer, s: Settings): Promise<Omit<ExtractTextResult, 'mime'>> {
  const result = await parseInWorker(
    { kind: 'pdf', data: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength), maxPages: s.maxPages, maxChars: s.maxChars },
    { timeoutMs: s.timeoutMs, memoryMb: s.parserMemoryMb },
  );
  if (result.kind !== 'pdf') throw new TextExtractionError('The PDF could not be read', 'parser answered for another kind');
  return assemble(result.pages, s.maxChars, result.pages.length < result.totalPages);
}

async function extractDocx(buf: Buffer, s: Settings): Promise<Omit<ExtractTextResult, 'mime'>> {
  await checkDocxArchive(buf, s);
  const result = await parseInWorker({ kind: 'docx', data: new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) }, { timeoutMs: s.timeoutMs, memoryMb: s.parserMemoryMb });
  if (result.kind !== 'docx') throw new TextExtractionError('The Word document could not be read', 'parser answered for another kind');
  const raw = result.text.replace(/\r\n?/g, '\n');
  if (!result.splitOnPageBreaks || !raw.includes('\f')) {
    const text = cut(raw.replace(/\f/g, '\n').trim(), s.maxChars);
    return { text, pages: null, truncated: text.length < raw.trim().length };
  }
  const pageTexts = raw.split('\f').map((p) => p.replace(/^\n+|\s+$/g, ''));
  const kept = pageTexts.slice(0, s.maxPages);
  return assemble(kept, s.maxChars, kept.length < pageTexts.length);
}

async function extractImage(buf: Buffer, mime: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp', s: Settings): Promise<Omit<ExtractTextResult, 'mime'>> {
  const size = imageSize(buf, mime);
  if (!size || size.width === 0 || size.height === 0) throw new TextExtractionError('The image header could not be read');
  if (size.width * size.height > s.maxImagePixels) {
    throw new TextExtractionError(`The image has ${size.width}x${size.height} pixels, more than the ${s.maxImagePixels} allowed for OCR`);
  }
  const ocr = await ocrImage(buf, { tesseractPath: s.tesseractPath, language: s.ocrLanguage, timeoutMs: s.timeoutMs, maxOutputBytes: s.maxChars * 4 });
  const raw = ocr.text.replace(/\f/g, '').trim();
  const text = cut(raw, s.maxChars);
  return { text, pages: [{ page: 1, text }], truncated: ocr.truncated || text.length < raw.length };
}

function extractPlain(buf: Buffer, s: Settings): Omit<ExtractTextResult, 'mime'> {
  const raw = decodeUtf8(buf);
  const text = cut(raw, s.maxChars);
  return { text, pages: null, truncated: text.length < raw.length };
}

async function readInput(input: Buffer | string, maxBytes: number): Promise<Buffer> {
  if (Buffer.isBuffer(input)) {
    if (input.length > maxBytes) throw new ExtractionInputTooLargeError(maxBytes);
    return input;
  }
  const info = await stat(input);
  if (info.size > maxBytes) throw new ExtractionInputTooLargeError(maxBytes);
  const buf = await readFile(input);
  if (buf.length > maxBytes) throw new ExtractionInputTooLargeError(maxBytes);
  return buf;
}

/**
 * Text of a document whose type is already known (sniffMime): PDF per page
 * (unpdf), DOCX as raw text (mammoth; pages when it has explicit page
 * breaks), text/CSV/JSON as UTF-8, images by OCR (tesseract). Legacy .doc,
 * .xls and .xlsx throw UnsupportedDocumentTypeError: convert them first.
 * Throws ExtractionInputTooLargeError, TextExtractionError,
 * ExtractionTimeoutError, ExtractorUnavailableError.
 */
export async function extractText(input: Buffer | string, mime: string, options: ExtractTextOptions = {}): Promise<ExtractTextResult> {
  const settings: Settings = { ...DEFAULTS, ...options };
  const type = normaliseMimeType(mime);
  if (!type) throw new UnsupportedDocumentTypeError(mime);
  let result: Omit<ExtractTextResult, 'mime'>;
  switch (type) {
    case 'application/pdf':
      result = await extractPdf(await readInput(input, settings.maxBytes), settings);
      break;
    case 'application/vnd.openxmlformats-officedocument.wordprocessingml.document':
      result = await extractDocx(await readInput(input, settings.maxBytes), settings);
      break;
    case 'image/png':
    case 'image/jpeg':
    case 'image/gif':
    case 'image/webp':
      result = await extractImage(await readInput(input, settings.maxBytes), type, settings);
      break;
    case 'text/plain':
    case 'text/csv':
    case 'application/json':
      result = extractPlain(await readInput(input, settings.maxBytes), settings);
      break;
    case 'application/msword':
    case 'application/vnd.ms-excel':
    case 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet':
      throw new UnsupportedDocumentTypeError(type);
    default: {
      const unknown: never = type;
      throw new UnsupportedDocumentTypeError(String(unknown));
    }
  }
  return { ...result, mime: type };
}

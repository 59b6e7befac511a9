import { ConversionRefusedError } from './errors';
import { readZipDirectory, ZipFormatError, type ZipEntry } from './zip-directory';

export interface OfficeZipLimits {
  /** Largest accepted file, in bytes. */
  maxFileBytes: number;
  maxEntries: number;
  /** Sum of the declared uncompressed sizes. */
  maxTotalUncompressedBytes: number;
  /** Uncompressed/compressed, checked for entries (and the whole archive) above ratioMinBytes. */
  maxCompressionRatio: number;
  /** Small parts (XML of a few KiB) may compress very well; the ratio is judged only above this size. */
  ratioMinBytes: number;
}

export const DEFAULT_OFFICE_ZIP_LIMITS: Readonly<OfficeZipLimits> = Object.freeze({
  maxFileBytes: 100 * 1024 * 1024,
  maxEntries: 2000,
  maxTotalUncompressedBytes: 200 * 1024 * 1024,
  maxCompressionRatio: 100,
  ratioMinBytes: 1024 * 1024,
});

export type OfficeZipKind = 'docx' | 'xlsx' | 'pptx' | 'unknown';

export interface OfficeZipReport {
  kind: OfficeZipKind;
  entryCount: number;
  totalCompressedBytes: number;
  totalUncompressedBytes: number;
}

export interface InspectOfficeZipOptions {
  /** Refuse unless the archive is this kind of document (`not_a_docx`). */
  expect?: 'docx';
  limits?: Partial<OfficeZipLimits>;
}

const STORED = 0;
const DEFLATED = 8;
const LOCAL_HEADER_SIZE = 30;

function unsafeName(name: string): boolean {
  if (name.length === 0 || name.includes('\0') || name.includes('\\')) return true;
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return true;
  return name.split('/').some((segment) => segment === '..');
}

function kindOf(names: Set<string>): OfficeZipKind {
  if (!names.has('[Content_Types].xml')) return 'unknown';
  if (names.has('word/document.xml')) return 'docx';
  if (names.has('xl/workbook.xml')) return 'xlsx';
  if (names.has('ppt/presentation.xml')) return 'pptx';
  return 'unknown';
}

/** Entries must not share bytes: the overlapping-entry zip bomb reuses one compressed block many times. */
function findOverlap(entries: ZipEntry[], centralDirectoryOffset: number): ZipEntry | undefined {
  const sorted = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 0; i < sorted.length; i += 1) {
    const entry = sorted[i]!;
    const end = entry.localHeaderOffset + LOCAL_HEADER_SIZE + Buffer.byteLength(entry.name) + entry.compressedSize;
    const nextStart = sorted[i + 1]?.localHeaderOffset ?? centralDirectoryOffset;
    if (end > nextStart) return entry;
  }
  return undefined;
}

/**
 * Judges an OOXML (zip) office file from its central directory alone, before
 * LibreOffice sees it, and refuses with ConversionRefusedError (details.reason)
 * anything shaped like a zip bomb or a path-traversal archive: too large, too
 * many entries, too much declared uncompressed data, a suspicious compression
 * ratio, overlapping entries, `..` or absolute entry names, encryption, or an
 * unknown compression method. With `expect: 'docx'` it also requires
 * `[Content_Types].xml` and `word/document.xml`. Nothing is decompressed, so
 * sizes are the archive's own claims; LibreOffice's run is further bounded by
 * the conversion timeout.
 */
export async function inspectOfficeZip(path: string, options: InspectOfficeZipOptions = {}): Promise<OfficeZipReport> {
  const limits: OfficeZipLimits = { ...DEFAULT_OFFICE_ZIP_LIMITS, ...options.limits };
  let directory;
  try {
    directory = await readZipDirectory(path, limits.maxEntries);
  } catch (err) {
    if (err instanceof ZipFormatError) throw new ConversionRefusedError(err.kind, `Refused document: ${err.message}`);
    throw err;
  }
  const { entries, fileSize } = directory;
  if (fileSize > limits.maxFileBytes) {
    throw new ConversionRefusedError('input_too_large', `Refused document: ${fileSize} bytes, more than ${limits.maxFileBytes}`);
  }

  const names = new Set<string>();
  let totalCompressed = 0;
  let totalUncompressed = 0;
  for (const entry of entries) {
    if (unsafeName(entry.name)) {
      throw new ConversionRefusedError('unsafe_entry_name', `Refused document: entry name "${entry.name.slice(0, 80)}" is not a safe relative path`);
    }
    if (names.has(entry.name)) throw new ConversionRefusedError('duplicate_entry', `Refused document: entry "${entry.name.slice(0, 80)}" appears twice`);
    names.add(entry.name);
    if (entry.flags & 0x0001) throw new ConversionRefusedError('encrypted_entry', 'Refused document: it holds encrypted entries');
    if (entry.method !== STORED && entry.method !== DEFLATED) {
      throw new ConversionRefusedError('unsupported_compression', `Refused document: compression method ${entry.method} is not accepted`);
    }
    totalCompressed += entry.compressedSize;
    totalUncompressed += entry.uncompressedSize;
  }

  if (totalUncompressed > limits.maxTotalUncompressedBytes) {
    throw new ConversionRefusedError(
      'total_uncompressed_too_large',
      `Refused document: it expands to ${totalUncompressed} bytes, more than ${limits.maxTotalUncompressedBytes}`,
    );
  }
  const ratio = (uncompressed: number, compressed: number): number => uncompressed / Math.max(compressed, 1);
  for (const entry of entries) {
    if (entry.uncompressedSize > limits.ratioMinBytes && ratio(entry.uncompressedSize, entry.compressedSize) > limits.maxCompressionRatio) {
      throw new ConversionRefusedError(
        'compression_ratio_too_high',
        `Refused document: entry "${entry.name.slice(0, 80)}" expands more than ${limits.maxCompressionRatio} times`,
      );
    }
  }
  if (totalUncompressed > limits.ratioMinBytes && ratio(totalUncompressed, fileSize) > limits.maxCompressionRatio) {
    throw new ConversionRefusedError('compression_ratio_too_high', `Refused document: it expands more than ${limits.maxCompressionRatio} times`);
  }
  const overlap = findOverlap(entries, directory.centralDirectoryOffset);
  if (overlap) throw new ConversionRefusedError('overlapping_entries', `Refused document: entry "${overlap.name.slice(0, 80)}" overlaps another`);

  const kind = kindOf(names);
  if (options.expect === 'docx' && kind !== 'docx') {
    throw new ConversionRefusedError('not_a_docx', 'Refused document: not a Word document ([Content_Types].xml and word/document.xml are required)');
  }
  return { kind, entryCount: entries.length, totalCompressedBytes: totalCompressed, totalUncompressedBytes: totalUncompressed };
}

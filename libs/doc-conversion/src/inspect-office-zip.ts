import { stat } from 'node:fs/promises';
import { DEFAULT_ZIP_LIMITS, inspectZip } from '@docflow/safe-zip';
import { ConversionRefusedError } from './errors';

export interface OfficeZipLimits {
  /** Largest accepted file, in bytes. */
  maxFileBytes: number;
  maxEntries: number;
  /** Bytes all entries may inflate to, counted while inflating (declared sizes are not trusted). */
  maxTotalUncompressedBytes: number;
  /** Inflated/compressed, checked for entries that inflate past ratioMinBytes. */
  maxCompressionRatio: number;
  /** Small parts (XML of a few KiB) may compress very well; the ratio is judged only above this size. */
  ratioMinBytes: number;
}

export const DEFAULT_OFFICE_ZIP_LIMITS: Readonly<OfficeZipLimits> = Object.freeze({
  maxFileBytes: 100 * 1024 * 1024,
  maxEntries: DEFAULT_ZIP_LIMITS.maxEntries,
  maxTotalUncompressedBytes: DEFAULT_ZIP_LIMITS.maxTotalInflatedBytes,
  maxCompressionRatio: DEFAULT_ZIP_LIMITS.maxCompressionRatio,
  ratioMinBytes: DEFAULT_ZIP_LIMITS.ratioMinBytes,
});

export type OfficeZipKind = 'docx' | 'xlsx' | 'pptx' | 'unknown';

export interface OfficeZipReport {
  kind: OfficeZipKind;
  entryCount: number;
  totalCompressedBytes: number;
  /** What the entries really inflated to. */
  totalUncompressedBytes: number;
}

export interface InspectOfficeZipOptions {
  /** Refuse unless the archive is this kind of document (`not_a_docx`). */
  expect?: 'docx';
  limits?: Partial<OfficeZipLimits>;
  /**
   * Refuse (`remote_resource`) a document whose parts link resources outside
   * it (images, templates, frames, OLE objects with TargetMode="External"):
   * LibreOffice would fetch them. Used when the converter cannot take the
   * network away from LibreOffice. Hyperlinks are not fetched and stay allowed.
   */
  refuseRemoteResources?: boolean;
}

const RELATIONSHIP = /<(?:\w+:)?Relationship\b[^>]*>/g;

/** The first relationship that makes a reader fetch something from outside the archive, if any. */
function remoteRelationship(rels: Record<string, Buffer>): string | undefined {
  for (const [part, xml] of Object.entries(rels)) {
    for (const [element] of xml.toString('utf8').matchAll(RELATIONSHIP)) {
      if (!/\bTargetMode\s*=\s*["']External["']/i.test(element)) continue;
      if (/\bType\s*=\s*["'][^"']*\/hyperlink["']/i.test(element)) continue;
      return part;
    }
  }
  return undefined;
}

function kindOf(names: Set<string>): OfficeZipKind {
  if (!names.has('[Content_Types].xml')) return 'unknown';
  if (names.has('word/document.xml')) return 'docx';
  if (names.has('xl/workbook.xml')) return 'xlsx';
  if (names.has('ppt/presentation.xml')) return 'pptx';
  return 'unknown';
}

/**
 * Judges an OOXML (zip) office file before LibreOffice sees it, and refuses
 * with ConversionRefusedError (details.reason) anything shaped like a zip bomb
 * or a path-traversal archive. Every entry is inflated in a worker thread
 * (libs/safe-zip) and its bytes counted as they come out, so the limits hold
 * whatever sizes the archive declares: too large, too many entries, too much
 * inflated data, a suspicious compression ratio, sizes that differ from the
 * declared ones, `..` or absolute entry names, encryption, or an unknown
 * compression method. With `expect: 'docx'` it also requires
 * `[Content_Types].xml` and `word/document.xml`.
 */
export async function inspectOfficeZip(path: string, options: InspectOfficeZipOptions = {}): Promise<OfficeZipReport> {
  const limits: OfficeZipLimits = { ...DEFAULT_OFFICE_ZIP_LIMITS, ...options.limits };
  const fileSize = (await stat(path)).size;
  if (fileSize > limits.maxFileBytes) {
    throw new ConversionRefusedError('input_too_large', `Refused document: ${fileSize} bytes, more than ${limits.maxFileBytes}`);
  }
  const inspection = await inspectZip(
    { path },
    {
      limits: {
        maxEntries: limits.maxEntries,
        maxTotalInflatedBytes: limits.maxTotalUncompressedBytes,
        maxCompressionRatio: limits.maxCompressionRatio,
        ratioMinBytes: limits.ratioMinBytes,
      },
      ...(options.refuseRemoteResources ? { keepPattern: '\\.rels$' } : {}),
    },
  );
  if (!inspection.ok) throw new ConversionRefusedError(inspection.reason, `Refused document: ${inspection.message}`);
  const remote = options.refuseRemoteResources ? remoteRelationship(inspection.kept) : undefined;
  if (remote !== undefined) {
    throw new ConversionRefusedError('remote_resource', `Refused document: ${remote.slice(0, 80)} links a resource outside the document, and conversion has no network isolation here`);
  }

  const kind = kindOf(new Set(inspection.entries.map((e) => e.name)));
  if (options.expect === 'docx' && kind !== 'docx') {
    throw new ConversionRefusedError('not_a_docx', 'Refused document: not a Word document ([Content_Types].xml and word/document.xml are required)');
  }
  return { kind, entryCount: inspection.entries.length, totalCompressedBytes: inspection.totalCompressedBytes, totalUncompressedBytes: inspection.totalInflatedBytes };
}

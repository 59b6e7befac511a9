import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateRawSync } from 'node:zlib';

/** Test fixtures written by hand: real PDF, DOCX (zip) and PNG files. */

/** A valid PDF with one Helvetica text line per entry, one page per inner array. */
export { buildPdf } from '@docflow/testing';

export interface ZipEntry {
  name: string;
  data: Buffer | string;
  /** Claim another uncompressed size in the central directory (zip-bomb fixtures). */
  declaredSize?: number;
}

export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = typeof entry.data === 'string' ? Buffer.from(entry.data, 'utf8') : entry.data;
    const packed = deflateRawSync(raw);
    const name = Buffer.from(entry.name, 'utf8');
    const crc = crc32(raw);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(entry.declaredSize ?? raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';

/** A minimal Word document: one paragraph per string, `null` for a page break. */
export function buildDocx(blocks: (string | null)[], options: { fontSizeHalfPoints?: number; extraEntries?: ZipEntry[] } = {}): Buffer {
  const props = options.fontSizeHalfPoints ? `<w:rPr><w:sz w:val="${options.fontSizeHalfPoints}"/></w:rPr>` : '';
  const body = blocks
    .map((b) => (b === null ? '<w:p><w:r><w:br w:type="page"/></w:r></w:p>' : `<w:p><w:r>${props}<w:t xml:space="preserve">${b.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</w:t></w:r></w:p>`))
    .join('');
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
  return buildZip([{ name: '[Content_Types].xml', data: CONTENT_TYPES }, { name: '_rels/.rels', data: ROOT_RELS }, { name: 'word/document.xml', data: document }, ...(options.extraEntries ?? [])]);
}

/** A PNG of the first page of a PDF, rendered by poppler's pdftoppm (150 dpi). */
export async function renderPng(pdf: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docflow-render-'));
  try {
    await writeFile(path.join(dir, 'in.pdf'), pdf);
    await promisify(execFile)('pdftoppm', ['-png', '-r', '150', '-f', '1', '-l', '1', '-singlefile', path.join(dir, 'in.pdf'), path.join(dir, 'out')], { timeout: 60_000 });
    return await readFile(path.join(dir, 'out.png'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

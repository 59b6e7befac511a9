import { inflateRawSync } from 'node:zlib';

/**
 * A zip archive held in memory, read from its central directory (no entry is
 * decompressed unless asked for, and then only up to a byte cap). Used to
 * recognise OOXML files and to judge a DOCX before it is parsed.
 * (libs/doc-conversion has a file-based twin; the lint boundaries keep the two
 * libraries apart.)
 */

export interface ZipEntryInfo {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_SIZE = 22;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;

function findEnd(buf: Buffer): number {
  const lowest = Math.max(0, buf.length - EOCD_SIZE - 0xffff);
  for (let i = buf.length - EOCD_SIZE; i >= lowest; i -= 1) {
    if (buf.readUInt32LE(i) === EOCD_SIGNATURE && i + EOCD_SIZE + buf.readUInt16LE(i + 20) === buf.length) return i;
  }
  return -1;
}

/** The archive's entries, or undefined when buf is not a complete, plain (non-zip64, single-disk) zip. */
export function listZipEntries(buf: Buffer, maxEntries = 10_000): ZipEntryInfo[] | undefined {
  if (buf.length < EOCD_SIZE) return undefined;
  const end = findEnd(buf);
  if (end < 0) return undefined;
  const total = buf.readUInt16LE(end + 10);
  const size = buf.readUInt32LE(end + 12);
  const offset = buf.readUInt32LE(end + 16);
  if (buf.readUInt16LE(end + 4) !== 0 || buf.readUInt16LE(end + 6) !== 0) return undefined;
  if (total === 0xffff || total > maxEntries || offset + size > end) return undefined;
  const entries: ZipEntryInfo[] = [];
  let pos = offset;
  for (let i = 0; i < total; i += 1) {
    if (pos + 46 > end || buf.readUInt32LE(pos) !== CENTRAL_SIGNATURE) return undefined;
    const flags = buf.readUInt16LE(pos + 8);
    const nameLength = buf.readUInt16LE(pos + 28);
    const next = pos + 46 + nameLength + buf.readUInt16LE(pos + 30) + buf.readUInt16LE(pos + 32);
    if (next > end) return undefined;
    entries.push({
      name: buf.toString(flags & 0x0800 ? 'utf8' : 'latin1', pos + 46, pos + 46 + nameLength),
      flags,
      method: buf.readUInt16LE(pos + 10),
      compressedSize: buf.readUInt32LE(pos + 20),
      uncompressedSize: buf.readUInt32LE(pos + 24),
      localHeaderOffset: buf.readUInt32LE(pos + 42),
    });
    pos = next;
  }
  return entries;
}

/** One entry's bytes (stored or deflated), or undefined when damaged, encrypted, other-compressed or over maxBytes. */
export function readZipEntry(buf: Buffer, entry: ZipEntryInfo, maxBytes: number): Buffer | undefined {
  if (entry.flags & 0x0001 || entry.uncompressedSize > maxBytes) return undefined;
  const at = entry.localHeaderOffset;
  if (at + 30 > buf.length || buf.readUInt32LE(at) !== LOCAL_SIGNATURE) return undefined;
  const start = at + 30 + buf.readUInt16LE(at + 26) + buf.readUInt16LE(at + 28);
  const data = buf.subarray(start, start + entry.compressedSize);
  if (data.length !== entry.compressedSize) return undefined;
  try {
    if (entry.method === 0) return data.length <= maxBytes ? data : undefined;
    if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return undefined;
  }
  return undefined;
}

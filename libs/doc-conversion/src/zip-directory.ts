import { open, type FileHandle } from 'node:fs/promises';

/**
 * Reads a zip file's end-of-central-directory record and central directory,
 * and nothing else: no entry is decompressed. Used to judge an office file
 * before handing it to LibreOffice.
 */

export interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

export interface ZipDirectory {
  fileSize: number;
  centralDirectoryOffset: number;
  entries: ZipEntry[];
}

/** Why the bytes are not a zip this reader accepts. */
export class ZipFormatError extends Error {
  constructor(
    readonly kind: 'not_a_zip' | 'unsupported_zip' | 'too_many_entries',
    message: string,
  ) {
    super(message);
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const EOCD_SIZE = 22;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const CENTRAL_HEADER_SIZE = 46;
const MAX_COMMENT = 0xffff;
const MAX_CENTRAL_DIRECTORY_BYTES = 16 * 1024 * 1024;

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, position);
  if (bytesRead !== length) throw new ZipFormatError('not_a_zip', 'file ended early');
  return buffer;
}

function findEndOfCentralDirectory(tail: Buffer): number {
  for (let i = tail.length - EOCD_SIZE; i >= 0; i -= 1) {
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE && i + EOCD_SIZE + tail.readUInt16LE(i + 20) === tail.length) return i;
  }
  return -1;
}

/** Entry names: UTF-8 when flag bit 11 says so, otherwise read byte for byte. */
function decodeName(raw: Buffer, flags: number): string {
  return raw.toString(flags & 0x0800 ? 'utf8' : 'latin1');
}

export async function readZipDirectory(path: string, maxEntries: number): Promise<ZipDirectory> {
  const handle = await open(path, 'r');
  try {
    const fileSize = (await handle.stat()).size;
    if (fileSize < EOCD_SIZE) throw new ZipFormatError('not_a_zip', 'too short to be a zip file');
    const tailLength = Math.min(fileSize, EOCD_SIZE + MAX_COMMENT);
    const tailStart = fileSize - tailLength;
    const tail = await readAt(handle, tailStart, tailLength);
    const at = findEndOfCentralDirectory(tail);
    if (at < 0) throw new ZipFormatError('not_a_zip', 'no end-of-central-directory record');

    const diskNumber = tail.readUInt16LE(at + 4);
    const centralDisk = tail.readUInt16LE(at + 6);
    const entriesOnDisk = tail.readUInt16LE(at + 8);
    const totalEntries = tail.readUInt16LE(at + 10);
    const centralSize = tail.readUInt32LE(at + 12);
    const centralOffset = tail.readUInt32LE(at + 16);
    if (at >= 20 && tail.readUInt32LE(at - 20) === ZIP64_LOCATOR_SIGNATURE) {
      throw new ZipFormatError('unsupported_zip', 'zip64 archives are not accepted');
    }
    if (totalEntries === 0xffff || centralSize === 0xffffffff || centralOffset === 0xffffffff) {
      throw new ZipFormatError('unsupported_zip', 'zip64 archives are not accepted');
    }
    if (diskNumber !== 0 || centralDisk !== 0 || entriesOnDisk !== totalEntries) {
      throw new ZipFormatError('unsupported_zip', 'multi-disk archives are not accepted');
    }
    if (totalEntries > maxEntries) {
      throw new ZipFormatError('too_many_entries', `${totalEntries} entries, more than the ${maxEntries} allowed`);
    }
    const eocdOffset = tailStart + at;
    if (centralOffset + centralSize > eocdOffset || centralSize > MAX_CENTRAL_DIRECTORY_BYTES) {
      throw new ZipFormatError('not_a_zip', 'central directory lies outside the file');
    }

    const central = await readAt(handle, centralOffset, centralSize);
    const entries: ZipEntry[] = [];
    let pos = 0;
    for (let i = 0; i < totalEntries; i += 1) {
      if (pos + CENTRAL_HEADER_SIZE > central.length || central.readUInt32LE(pos) !== CENTRAL_SIGNATURE) {
        throw new ZipFormatError('not_a_zip', `central directory entry ${i} is damaged`);
      }
      const flags = central.readUInt16LE(pos + 8);
      const method = central.readUInt16LE(pos + 10);
      const compressedSize = central.readUInt32LE(pos + 20);
      const uncompressedSize = central.readUInt32LE(pos + 24);
      const nameLength = central.readUInt16LE(pos + 28);
      const extraLength = central.readUInt16LE(pos + 30);
      const commentLength = central.readUInt16LE(pos + 32);
      const localHeaderOffset = central.readUInt32LE(pos + 42);
      const next = pos + CENTRAL_HEADER_SIZE + nameLength + extraLength + commentLength;
      if (next > central.length) throw new ZipFormatError('not_a_zip', `central directory entry ${i} is damaged`);
      if (compressedSize === 0xffffffff || uncompressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
        throw new ZipFormatError('unsupported_zip', 'zip64 entries are not accepted');
      }
      const name = decodeName(central.subarray(pos + CENTRAL_HEADER_SIZE, pos + CENTRAL_HEADER_SIZE + nameLength), flags);
      entries.push({ name, flags, method, compressedSize, uncompressedSize, localHeaderOffset });
      pos = next;
    }
    return { fileSize, centralDirectoryOffset: centralOffset, entries };
  } finally {
    await handle.close();
  }
}

/**
 * Pixel dimensions from an image's header, so that OCR can refuse a
 * decompression bomb (a tiny file declaring a gigantic canvas) before the
 * image is decoded. Undefined when the header cannot be read.
 */
export interface ImageSize {
  width: number;
  height: number;
}

function png(buf: Buffer): ImageSize | undefined {
  if (buf.length < 24) return undefined;
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

function gif(buf: Buffer): ImageSize | undefined {
  if (buf.length < 10) return undefined;
  return { width: buf.readUInt16LE(6), height: buf.readUInt16LE(8) };
}

/** The first start-of-frame marker (SOF0-SOF15 but DHT, JPG and DAC) holds the size. */
function jpeg(buf: Buffer): ImageSize | undefined {
  let pos = 2;
  while (pos + 9 < buf.length) {
    if (buf[pos] !== 0xff) return undefined;
    const marker = buf[pos + 1] ?? 0;
    if (marker === 0xff) {
      pos += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2;
      continue;
    }
    const length = buf.readUInt16BE(pos + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: buf.readUInt16BE(pos + 5), width: buf.readUInt16BE(pos + 7) };
    }
    if (length < 2) return undefined;
    pos += 2 + length;
  }
  return undefined;
}

function webp(buf: Buffer): ImageSize | undefined {
  if (buf.length < 30) return undefined;
  const chunk = buf.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + buf.readUIntLE(24, 3), height: 1 + buf.readUIntLE(27, 3) };
  if (chunk === 'VP8L') {
    const bits = buf.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ') return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
  return undefined;
}

export function imageSize(buf: Buffer, mime: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp'): ImageSize | undefined {
  switch (mime) {
    case 'image/png':
      return png(buf);
    case 'image/jpeg':
      return jpeg(buf);
    case 'image/gif':
      return gif(buf);
    case 'image/webp':
      return webp(buf);
    default: {
      const unknown: never = mime;
      return unknown;
    }
  }
}

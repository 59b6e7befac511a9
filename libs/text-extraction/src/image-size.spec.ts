import { imageSize } from './image-size';
import { buildPng } from '@docflow/testing';

describe('imageSize', () => {
  it('reads a PNG header', () => {
    expect(imageSize(buildPng(37, 5), 'image/png')).toEqual({ width: 37, height: 5 });
  });

  it('reads a GIF logical screen', () => {
    expect(imageSize(Buffer.from('GIF89a\x40\x01\xf0\x00\x00\x00\x00', 'latin1'), 'image/gif')).toEqual({ width: 320, height: 240 });
  });

  it('reads a JPEG start-of-frame after other segments', () => {
    const jpeg = Buffer.from([
      0xff,
      0xd8, // SOI
      0xff,
      0xe0,
      0x00,
      0x04,
      0x00,
      0x00, // APP0, 2 bytes of payload
      0xff,
      0xc4,
      0x00,
      0x03,
      0x00, // DHT (not a frame)
      0xff,
      0xc2,
      0x00,
      0x0b,
      0x08,
      0x01,
      0xe0,
      0x02,
      0x80,
      0x01,
      0x01,
      0x11,
      0x00, // SOF2: 480 x 640
    ]);
    expect(imageSize(jpeg, 'image/jpeg')).toEqual({ width: 640, height: 480 });
  });

  it('reads the three WebP variants', () => {
    const riff = (chunk: string, body: number[]): Buffer =>
      Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP'), Buffer.from(chunk, 'latin1'), Buffer.alloc(4), Buffer.from(body), Buffer.alloc(10)]);
    // VP8X: 24-bit width-1 and height-1 at offsets 24 and 27.
    expect(imageSize(riff('VP8X', [0, 0, 0, 0, 0x7f, 0x02, 0x00, 0xdf, 0x01, 0x00]), 'image/webp')).toEqual({ width: 640, height: 480 });
    // VP8L: signature byte, then 14-bit width-1 and height-1.
    const bits = (640 - 1) | ((480 - 1) << 14);
    const vp8l = Buffer.alloc(4);
    vp8l.writeUInt32LE(bits);
    expect(imageSize(riff('VP8L', [0x2f, ...vp8l]), 'image/webp')).toEqual({ width: 640, height: 480 });
    // VP8: frame tag and start code, then 14-bit width and height at 26 and 28.
    expect(imageSize(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01]), 'image/webp')).toEqual({ width: 640, height: 480 });
  });

  it('gives undefined for a header it cannot read', () => {
    expect(imageSize(Buffer.from([0xff, 0xd8, 0x00]), 'image/jpeg')).toBeUndefined();
    expect(imageSize(Buffer.from('RIFF'), 'image/webp')).toBeUndefined();
  });
});

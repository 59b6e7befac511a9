import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { DriveUnsupportedError } from './drive-errors';

/** Passes `source` through, failing with DriveUnsupportedError once more than `maxBytes` went by (a file that grew past its announced size). */
export function limitBytes(source: Readable, maxBytes: number | undefined, fileName: string): Readable {
  if (maxBytes === undefined) return source;
  let seen = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > maxBytes) callback(tooLarge(fileName, maxBytes));
      else callback(null, chunk);
    },
  });
  source.on('error', (err) => limiter.destroy(err));
  limiter.on('close', () => {
    if (!source.destroyed) source.destroy();
  });
  return source.pipe(limiter);
}

export function tooLarge(fileName: string, maxBytes: number): DriveUnsupportedError {
  return new DriveUnsupportedError(`${fileName} is larger than ${maxBytes} bytes`);
}

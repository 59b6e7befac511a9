import { Transform, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { AppError, BadRequestError, PayloadTooLargeError } from './errors';

/**
 * Request bodies may come compressed (`Content-Encoding`): gzip, deflate and br are inflated and handled as plain
 * ones, any other coding is refused with 415 (docs/decisions.md, "Resumes are resubmitted; compressed bodies").
 * express.json inflates JSON bodies itself (body-parser); these serve the bodies it does not read (multipart).
 */
export const BODY_ENCODINGS = ['gzip', 'deflate', 'br'] as const;

/** The request's Content-Encoding, lower-cased; `identity` when none. */
export function bodyEncodingOf(headers: { 'content-encoding'?: string | undefined }): string {
  return (headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
}

/** The 415 of a body in a coding the service does not inflate, in the service's error body. */
export function unsupportedEncodingError(encoding: string): AppError {
  return new AppError(
    415,
    'UnsupportedMediaTypeError',
    'Unsupported body encoding',
    { errors: [`Content-Encoding ${encoding.slice(0, 40)} is not accepted: send the body as is, or with ${BODY_ENCODINGS.join(', ')}`] },
    'unsupported_media_type',
  );
}

function decompressor(encoding: string): Transform | undefined {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      return undefined;
  }
}

/** Whether a body in this coding can be read (identity, or one the service inflates). */
export function isReadableBodyEncoding(encoding: string): boolean {
  return encoding === 'identity' || decompressor(encoding) !== undefined;
}

/**
 * The inflated bytes of a compressed body, at most `maxBytes` of them: beyond, the stream fails with 413 (a small
 * body that inflates without end is stopped as it inflates, never held); a body that does not inflate fails with
 * 400. `encoding` must be one isReadableBodyEncoding accepts, other than identity.
 */
export function inflatedBody(source: Readable, encoding: string, maxBytes: number): Readable {
  const inflate = decompressor(encoding);
  if (!inflate) throw new Error(`not an inflatable Content-Encoding: ${encoding}`);
  let size = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > maxBytes) done(new PayloadTooLargeError('Request body is too large', { errors: [`the inflated body is larger than ${maxBytes} bytes`] }));
      else done(null, chunk);
    },
  });
  inflate.on('error', () => capped.destroy(BadRequestError.withErrors('Request body could not be decompressed', ['the body does not match its Content-Encoding'])));
  capped.on('error', () => {
    source.unpipe(inflate);
    inflate.destroy();
    // The rest of the body is read and dropped, so the connection stays usable.
    source.resume();
  });
  source.pipe(inflate).pipe(capped);
  return capped;
}

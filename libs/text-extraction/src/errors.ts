import { PayloadTooLargeError, ServiceUnavailableError, UnprocessableEntityError } from '@docflow/service-kit';

/** No extractor for this type (legacy .doc/.xls and .xlsx: convert them first). */
export class UnsupportedDocumentTypeError extends UnprocessableEntityError {
  constructor(readonly mime: string) {
    super(`Text cannot be extracted from ${mime.slice(0, 100)} files`, { mime: mime.slice(0, 100) }, 'unsupported_document_type');
  }
}

/** The input is larger than the extractor's maxBytes. */
export class ExtractionInputTooLargeError extends PayloadTooLargeError {
  constructor(readonly maxBytes: number) {
    super(`Document is larger than ${maxBytes} bytes`, { maxBytes });
  }
}

/** The document could not be read (damaged, not what its type says, refused as a decompression bomb). */
export class TextExtractionError extends UnprocessableEntityError {
  constructor(
    message: string,
    /** What the parser said; for logs only. */
    readonly reason = '',
  ) {
    super(message, {}, 'extraction_failed');
  }
}

/** An office archive refused before anything else reads it: shaped like a zip bomb, unsafe names, encryption (libs/safe-zip). */
export class UnsafeArchiveError extends UnprocessableEntityError {
  constructor(
    message: string,
    readonly reason: string,
  ) {
    super(message, { reason }, 'unsafe_archive');
  }
}

/** The parser or OCR did not finish within timeoutMs and was stopped. */
export class ExtractionTimeoutError extends UnprocessableEntityError {
  constructor(readonly timeoutMs: number) {
    super(`Text extraction did not finish within ${timeoutMs} ms`, { timeoutMs }, 'extraction_timeout');
  }
}

/** A tool the extractor needs (tesseract) is not installed. */
export class ExtractorUnavailableError extends ServiceUnavailableError {
  constructor(message: string) {
    super(message, {}, 'extractor_unavailable');
  }
}

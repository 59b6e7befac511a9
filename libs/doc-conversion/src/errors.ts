import type { ZipRefusalReason } from '@docflow/safe-zip';
import { ServiceUnavailableError, UnprocessableEntityError } from '@docflow/service-kit';

/** Why a document is not converted: what the zip reader refuses, or this module's own checks. */
export type RefusalReason = ZipRefusalReason | 'input_too_large' | 'not_a_docx' | 'remote_resource';

/** The input is not converted: not a well-formed office file, or shaped like a zip bomb. */
export class ConversionRefusedError extends UnprocessableEntityError {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message, { reason }, 'conversion_refused');
  }
}

/** LibreOffice did not finish in time; its whole process group was killed. */
export class ConversionTimeoutError extends UnprocessableEntityError {
  constructor(
    readonly timeoutMs: number,
    /** Process group id of the killed soffice (for diagnostics and tests). */
    readonly pid: number | undefined,
  ) {
    super(`Document conversion did not finish within ${timeoutMs} ms`, { timeoutMs }, 'conversion_timeout');
  }
}

/** LibreOffice ran but produced no usable PDF. */
export class ConversionFailedError extends UnprocessableEntityError {
  constructor(
    message: string,
    /** The tail of soffice's output; for logs only (it may name temp paths). */
    readonly output = '',
    readonly exitCode: number | null = null,
  ) {
    super(message, {}, 'conversion_failed');
  }
}

/** The converter cannot take work now: soffice is not installed, or the queue is full. */
export class ConverterUnavailableError extends ServiceUnavailableError {
  constructor(message: string) {
    super(message, {}, 'converter_unavailable');
  }
}

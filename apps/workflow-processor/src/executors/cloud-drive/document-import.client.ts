import type { Readable } from 'node:stream';
import { isDriveError } from '@docflow/cloud-drive';
import { DocumentImportResponse, IDEMPOTENCY_KEY_HEADER, INTERNAL_DOCUMENT_IMPORT_PATH, type DocumentImportQuery } from '@docflow/contracts';
import { bodyText, InternalHttpClient, InternalHttpError, type InternalResponse } from '@docflow/internal-http';
import { validatePlain } from '@docflow/service-kit';
import { publicApiHttp } from '../public-api-http';
import { abortReason } from '../../engine/abort';
import { NodeFailure } from '../executor';

export interface DocumentImportRequest extends DocumentImportQuery {
  /** The drive's type; the public API detects the real one from the content. */
  contentType: string;
  content: Readable;
  idempotencyKey: string;
}

/** Stores a file as a document of a user (the public API's internal import route). */
export interface DocumentImporter {
  importDocument(request: DocumentImportRequest, signal: AbortSignal): Promise<DocumentImportResponse>;
  close(): void;
}

export interface DocumentImportClientOptions {
  /** PUBLIC_API_INTERNAL_URL, without /api. */
  baseUrl: string;
  /** Sent as `X-Service-Key`; never logged or put in an error. */
  serviceKey: string;
  /** Whole upload. Default 300 000 ms. */
  timeoutMs?: number;
}

/**
 * `POST /api/internal/documents/import` (libs/contracts cloud-drive.ts): the
 * file's bytes streamed as the body, the user and file name in the query,
 * the service key and an idempotency key in headers. Refusals of the file
 * itself (400, 413) fail the node with `validation_error`, a refused service
 * key or unknown user with `configuration_error`, anything else non-2xx with
 * `http_error` and the upstream status and body.
 */
export class DocumentImportClient implements DocumentImporter {
  private readonly http: InternalHttpClient;

  constructor(options: DocumentImportClientOptions) {
    this.http = publicApiHttp({ baseUrl: options.baseUrl, serviceKey: options.serviceKey, timeoutMs: options.timeoutMs ?? 300_000, maxSockets: 16, maxResponseBytes: 1024 * 1024 });
  }

  async importDocument(request: DocumentImportRequest, signal: AbortSignal): Promise<DocumentImportResponse> {
    if (signal.aborted) throw abortReason(signal);
    const query: DocumentImportQuery = { user_id: request.user_id, file_name: request.file_name, source: request.source, ...(request.source_ref ? { source_ref: request.source_ref } : {}) };
    // A failing download (too large, drive gone) ends the upload: its error is the one to report.
    let streamError: unknown;
    request.content.on('error', (err) => (streamError ??= err));
    let res: InternalResponse;
    try {
      res = await this.http.request({
        method: 'POST',
        path: INTERNAL_DOCUMENT_IMPORT_PATH,
        query: { ...query },
        stream: { body: request.content, contentType: request.contentType || 'application/octet-stream' },
        headers: { [IDEMPOTENCY_KEY_HEADER]: request.idempotencyKey },
        signal,
      });
    } catch (err) {
      request.content.destroy();
      if (signal.aborted) throw abortReason(signal);
      if (isDriveError(streamError)) throw streamError;
      if (err instanceof InternalHttpError && err.kind === 'timeout') throw new NodeFailure('timeout', 'The public API did not take the file in time');
      const code = err instanceof InternalHttpError && err.code ? ` (${err.code})` : '';
      throw new NodeFailure('network_error', `The public API could not be reached to store the file${code}`);
    }
    const status = res.status;
    const text = bodyText(res.body);
    if (status === 400 || status === 413 || status === 415) throw new NodeFailure('validation_error', `${status} ${text}: the file cannot be stored as a document`);
    if (status === 401 || status === 403) throw new NodeFailure('configuration_error', `${status} ${text}: the public API refused the processor's service key`);
    if (status === 404) throw new NodeFailure('configuration_error', `${status} ${text}: the public API does not know this run's user`);
    if (status < 200 || status >= 300) throw new NodeFailure('http_error', `${status} ${text}`);
    const checked = validatePlain(DocumentImportResponse, res.body);
    if (!checked.ok) throw new NodeFailure('http_error', `${status} the public API answered the import without ${checked.errors.join(', ')}`);
    return checked.value;
  }

  close(): void {
    this.http.close();
  }
}

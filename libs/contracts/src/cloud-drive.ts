import 'reflect-metadata';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsISO8601, IsNotEmpty, IsOptional, IsString, Length, Min } from 'class-validator';

/**
 * Internal routes of the public API that the workflow processor's
 * `cloud_drive_fetch_task` calls (issue 14; the routes come with the event
 * bus's phase 2). Both answer only service credentials (`X-Service-Key` or a
 * service JWT), like every internal route that takes a user from the request;
 * the processor names the run's user from its signed job, never from a node.
 */

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

/**
 * `POST {PUBLIC_API_INTERNAL_URL}/api/internal/documents/import?user_id=&file_name=&source=&source_ref=`
 *
 * Body: the file's bytes, streamed (`Content-Type`: the type the drive gave,
 * or `application/octet-stream`; `Content-Length` when known). Header
 * `Idempotency-Key` (optional, at most 200 characters): the same key for the
 * same user gives back the document the first call created, so a replayed
 * node does not store its file twice. The public API stores the file as a
 * document of `user_id` exactly as an upload (MIME type by content, the
 * user's quota, DOCX to PDF) and answers 201 DocumentImportResponse; a file
 * the upload rules refuse is 400, a full quota or a file past the upload
 * limit 413, an unknown user 404, all with the internal error body
 * `{error: code, message, details}`.
 */
export const INTERNAL_DOCUMENT_IMPORT_PATH = '/api/internal/documents/import';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Where an imported file came from (kept on the document's metadata). */
export const DOCUMENT_IMPORT_SOURCES = ['cloud_drive_fetch', 'cloud_drive_event', 'email_event'] as const;
export type DocumentImportSource = (typeof DOCUMENT_IMPORT_SOURCES)[number];

/** The query of the import route. */
export class DocumentImportQuery {
  @Transform(toInt)
  @IsInt()
  @Min(1)
  user_id!: number;

  /** The file's name as the drive shows it (the document's filename and title). */
  @IsString()
  @Length(1, 255)
  file_name!: string;

  @IsIn(DOCUMENT_IMPORT_SOURCES as unknown as string[])
  source!: DocumentImportSource;

  /** The file's id in its drive, or the message's event id. */
  @IsOptional()
  @IsString()
  @Length(1, 1024)
  source_ref?: string;
}

/** 201 of the import route. */
export class DocumentImportResponse {
  @IsInt()
  @Min(1)
  document_id!: number;

  /** As every document view shows it (`{PUBLIC_BASE_URL}/api/documents/{id}/download`). */
  @IsString()
  @IsNotEmpty()
  file_url!: string;

  /** Detected from the content. */
  @IsString()
  @IsNotEmpty()
  mime_type!: string;

  @IsInt()
  @Min(0)
  file_size!: number;

  @IsString()
  filename!: string;
}

/**
 * `POST {PUBLIC_API_INTERNAL_URL}/api/internal/cloud-drive/access-token`
 * with body DriveAccessTokenRequest: with `CLOUD_DRIVE_PROVIDER=google`, the
 * public API lends the user's current access token (refreshed when due, or
 * at once with `force_refresh` after Google answered 401), never the refresh
 * token, and answers 200 DriveAccessTokenResponse. The user has no grant:
 * 409 `{error: 'drive_not_connected'}`; the grant was revoked or could not
 * be refreshed: 409 `{error: 'drive_needs_reconnect'}`; with the local
 * provider: 404 `{error: 'not_available'}` (the processor reads local
 * drives itself).
 */
export const INTERNAL_DRIVE_ACCESS_TOKEN_PATH = '/api/internal/cloud-drive/access-token';
export const DRIVE_TOKEN_ERRORS = ['drive_not_connected', 'drive_needs_reconnect'] as const;

export class DriveAccessTokenRequest {
  @IsInt()
  @Min(1)
  user_id!: number;

  @IsOptional()
  @IsBoolean()
  force_refresh?: boolean;
}

export class DriveAccessTokenResponse {
  @IsString()
  @IsNotEmpty()
  access_token!: string;

  @IsISO8601()
  expires_at!: string;
}

import { isDriveError, type DriveError, type DriveFile, type DriveReader } from '@docflow/cloud-drive';
import { NodeFailure, type NodeContext, type TaskExecutor } from '../executor';
import type { DocumentImporter } from './document-import.client';

export interface CloudDriveFetchDeps {
  /** The drive of CLOUD_DRIVE_PROVIDER: local folders read directly, or Google with lent access tokens. */
  drive: DriveReader;
  importer: DocumentImporter;
  /** Larger files fail the node. Default 50 MiB (the largest file a webhook takes, spec 8). */
  maxFileBytes?: number;
}

export const DEFAULT_FETCH_MAX_BYTES = 50 * 1024 * 1024;
const EXACT_TEMPLATE = /^\{\{[^{}]+\}\}$/;

/** A config string, or undefined when empty or a template that resolved to nothing. */
function field(ctx: NodeContext, name: string): string | undefined {
  const value = ctx.config[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new NodeFailure('configuration_error', `${name} must be a string`);
  const trimmed = value.trim();
  return trimmed === '' || EXACT_TEMPLATE.test(trimmed) ? undefined : trimmed;
}

/** What the workflow author reads when the drive says no. */
function failureOf(err: DriveError): NodeFailure {
  switch (err.kind) {
    case 'invalid_path':
    case 'needs_reconnect':
    case 'oauth':
      return new NodeFailure('configuration_error', err.message);
    case 'not_found':
    case 'unsupported':
      return new NodeFailure('validation_error', err.message);
    case 'retryable':
      return new NodeFailure('network_error', `${err.message}; try again later`);
    case 'protocol':
      return new NodeFailure('http_error', err.message);
    case 'page_token_expired':
      return new NodeFailure('internal_error', err.message);
  }
}

async function driveCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw isDriveError(err) ? failureOf(err) : err;
  }
}

/**
 * `cloud_drive_fetch_task` (spec 2.7): finds a file in the run user's drive,
 * by `file_id` (direct mode, which wins when both are set) or by
 * `file_name` inside `folder_id` (search mode), stores it as a document of
 * that user through the public API, and outputs `file_url`, `file_id`,
 * `file_name`, `mime_type`, `size` and `document_id`. The user is the
 * signed job's (NodeContext.runUserId), never one named by config or inputs.
 */
export function createCloudDriveFetchExecutor(deps: CloudDriveFetchDeps): TaskExecutor {
  const maxBytes = deps.maxFileBytes ?? DEFAULT_FETCH_MAX_BYTES;
  return async (ctx) => {
    const userId = ctx.runUserId;
    if (userId === undefined) throw new NodeFailure('configuration_error', 'this run acts for no user, so it has no drive to fetch from');
    const fileId = field(ctx, 'file_id');
    const folderId = field(ctx, 'folder_id');
    const fileName = field(ctx, 'file_name');
    let file: DriveFile;
    if (fileId !== undefined) {
      file = await driveCall(() => deps.drive.getFile(userId, fileId));
    } else if (folderId !== undefined && fileName !== undefined) {
      const found = await driveCall(() => deps.drive.findFile(userId, folderId, fileName));
      if (!found) throw new NodeFailure('validation_error', `No file named ${fileName} in folder ${folderId}`);
      file = found;
    } else {
      throw new NodeFailure('configuration_error', 'Give file_id (direct mode), or folder_id and file_name (search mode)');
    }
    if (file.isFolder) throw new NodeFailure('validation_error', `${file.name} is a folder, not a file`);
    const download = await driveCall(() => deps.drive.download(userId, file.id, { maxBytes }));
    const stored = await driveCall(() =>
      deps.importer.importDocument(
        {
          user_id: userId,
          file_name: download.file.name,
          source: 'cloud_drive_fetch',
          source_ref: download.file.id,
          contentType: download.file.mimeType,
          content: download.stream,
          // The same node of the same execution stores one document per file version, however often it is replayed.
          idempotencyKey: `${ctx.executionKey}:${ctx.nodeId}:${download.file.id}:${download.file.version}`.slice(0, 200),
        },
        ctx.signal,
      ),
    );
    ctx.logger.info('drive file stored as a document', { nodeId: ctx.nodeId, documentId: stored.document_id, size: download.file.size });
    return {
      output: {
        file_url: stored.file_url,
        file_id: download.file.id,
        file_name: download.file.name,
        mime_type: stored.mime_type,
        size: download.file.size,
        document_id: stored.document_id,
      },
    };
  };
}

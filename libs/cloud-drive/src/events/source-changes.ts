import type { Logger } from '@docflow/service-kit';
import { DriveRetryableError, isDriveError } from '../drive-errors';
import type { DriveProvider } from '../drive-provider';
import type { FileSettler } from './file-settler';

/** What reading a source's changes needs to know about it (the event source row). */
export interface DriveSourceCursor {
  sourceId: number;
  /** The owner: every drive call acts for this user. */
  ownerId: number;
  /** `drive_item_id` */
  folderId: string;
  /** `page_token`, as last saved. */
  pageToken: string;
}

/** Where a source's page token is kept (phase 2: `UPDATE event_sources SET page_token = $2 WHERE id = $1`). */
export interface PageTokenStore {
  savePageToken(sourceId: number, pageToken: string): Promise<void>;
}

export type ChangeReadOutcome =
  /** Changes were handed to the settler; `pageToken` is saved. */
  | { kind: 'read'; observed: number; pageToken: string }
  /** The saved token was refused: a new start token is saved (changes made in the gap emit when the files change again). */
  | { kind: 'resynced'; pageToken: string }
  /** The drive is rate limiting or down: read again after `retryAfterMs`, from `pageToken` (saved). */
  | { kind: 'retry_later'; retryAfterMs: number; pageToken: string; message: string }
  /** The owner's grant is gone: the source becomes inactive with `message` (spec 3.6). */
  | { kind: 'needs_reconnect'; message: string }
  /** The folder is gone or unusable: the source becomes inactive with `message`. */
  | { kind: 'failed'; message: string };

export interface SourceChangeReaderOptions {
  provider: Pick<DriveProvider, 'listChanges' | 'getStartPageToken'>;
  settler: Pick<FileSettler, 'observeChanges'>;
  tokens: PageTokenStore;
  logger: Logger;
  /** Pages read per call before yielding (the rest follows on the next call). Default 50. */
  maxPages?: number;
}

/** Retry delay for an answer this client did not understand. */
const PROTOCOL_RETRY_MS = 60_000;

/**
 * What the event bus does with a notification (a Google push or a local
 * watch): list the source's changes from its saved page token, hand them to
 * the settler, and save the next token after each page, so that a crash or
 * an outage resumes from the last page read and nothing is lost (repeats
 * are dropped by the settle store). DriveErrors become outcomes the caller
 * switches over.
 */
export class SourceChangeReader {
  constructor(private readonly options: SourceChangeReaderOptions) {}

  async read(source: DriveSourceCursor): Promise<ChangeReadOutcome> {
    const { provider, settler, tokens } = this.options;
    let pageToken = source.pageToken;
    let observed = 0;
    try {
      for (let page = 0; page < (this.options.maxPages ?? 50); page += 1) {
        const changes = await provider.listChanges(source.ownerId, source.folderId, pageToken);
        await settler.observeChanges(source.sourceId, changes.changes);
        observed += changes.changes.length;
        const next = changes.nextPageToken ?? changes.newStartPageToken;
        if (next && next !== pageToken) {
          pageToken = next;
          await tokens.savePageToken(source.sourceId, pageToken);
        }
        if (!changes.nextPageToken) break;
      }
      return { kind: 'read', observed, pageToken };
    } catch (err) {
      if (isDriveError(err) && err.kind === 'page_token_expired') return this.resync(source);
      return outcomeOf(err, pageToken);
    }
  }

  private async resync(source: DriveSourceCursor): Promise<ChangeReadOutcome> {
    try {
      const pageToken = await this.options.provider.getStartPageToken(source.ownerId, source.folderId);
      await this.options.tokens.savePageToken(source.sourceId, pageToken);
      this.options.logger.warn('drive page token expired; reading from a new start token', { sourceId: source.sourceId });
      return { kind: 'resynced', pageToken };
    } catch (err) {
      return outcomeOf(err, source.pageToken);
    }
  }
}

/** A DriveError as the outcome the caller acts on; anything else is rethrown. */
function outcomeOf(err: unknown, pageToken: string): ChangeReadOutcome {
  if (!isDriveError(err)) throw err;
  switch (err.kind) {
    case 'retryable':
      return { kind: 'retry_later', retryAfterMs: err instanceof DriveRetryableError ? err.retryAfterMs : PROTOCOL_RETRY_MS, pageToken, message: err.message };
    case 'protocol':
      return { kind: 'retry_later', retryAfterMs: PROTOCOL_RETRY_MS, pageToken, message: err.message };
    case 'needs_reconnect':
    case 'oauth':
      return { kind: 'needs_reconnect', message: err.message };
    case 'not_found':
    case 'invalid_path':
    case 'unsupported':
    case 'page_token_expired':
      return { kind: 'failed', message: err.message };
  }
}

import type { StorageDriver } from '@docflow/storage';
import { errorMessage, isAppError, type Logger } from '@docflow/service-kit';
import { extractText, ExtractorUnavailableError, UnsupportedDocumentTypeError, type ExtractTextOptions } from '@docflow/text-extraction';
import type { DocumentsRepository, ExtractionOutcome, TextClaim } from './documents.repository';
import { readStoredObject } from './stored-objects';

export interface TextExtractionOptions {
  /** Extractions running at once in this process. */
  concurrency: number;
  /** How often the sweeper looks for left-behind rows. */
  sweepIntervalMs: number;
  /** Largest file read for extraction. */
  maxBytes: number;
  /** Options passed to extractText (timeouts, OCR language). */
  extract?: ExtractTextOptions;
  /** A pending row untouched this long is taken by the sweeper (its process died before extracting). */
  pendingGraceSeconds?: number;
  /** A processing claim older than this is taken again (its process died while extracting). */
  staleSeconds?: number;
  /** Claims per document before it is marked failed. */
  maxAttempts?: number;
  /** Ids waiting in memory at most; more are left to the sweeper. */
  maxQueued?: number;
  /** False in a process without the workers role: enqueued ids are left to a workers process's sweeper. */
  extractsEnqueued?: boolean;
}

/** Queued ids one lane claims at once: a crash leaves them `processing` until the sweeper's stale claim time, so few. */
const CLAIM_BATCH = 8;

/** Waits for every promise; a failure is logged (the claim stays and the sweeper takes the row again once stale). */
async function settleAll(promises: Promise<void>[], logger: Logger): Promise<void> {
  for (const r of await Promise.allSettled(promises)) {
    if (r.status === 'rejected') logger.warn('text extraction could not record its result', { error: errorMessage(r.reason) });
  }
}

/**
 * Extracts document text in the background. Uploads enqueue their new
 * document ids (processed right after the response); a periodic sweeper
 * claims rows that no process finished (pending past a grace period, or
 * processing with a stale claim) with FOR UPDATE SKIP LOCKED, so replicas
 * share the work and a crash loses nothing. Each row is claimed atomically
 * before work starts, so it is extracted by one process at a time.
 */
export class TextExtractionRunner {
  private readonly queue: number[] = [];
  private readonly queued = new Set<number>();
  private active = 0;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private stopped = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly pendingGraceSeconds: number;
  private readonly staleSeconds: number;
  private readonly maxAttempts: number;
  private readonly maxQueued: number;

  constructor(
    private readonly repo: DocumentsRepository,
    private readonly storage: StorageDriver,
    private readonly logger: Logger,
    private readonly options: TextExtractionOptions,
  ) {
    this.pendingGraceSeconds = options.pendingGraceSeconds ?? 60;
    this.staleSeconds = options.staleSeconds ?? 15 * 60;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.maxQueued = options.maxQueued ?? 10_000;
  }

  /** Queues documents for extraction in this process (those already queued or over the cap are left to the sweeper). */
  enqueue(ids: number[]): void {
    if (this.stopped || this.options.extractsEnqueued === false) return;
    for (const id of ids) {
      if (this.queued.has(id) || this.queue.length >= this.maxQueued) continue;
      this.queued.add(id);
      this.queue.push(id);
    }
    this.pump();
  }

  /** Starts the periodic sweeper (main does; tests call sweepOnce). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweepOnce()
        .catch((err: unknown) => {
          this.logger.warn('text extraction sweep failed', { error: errorMessage(err) });
          return 0;
        })
        .finally(() => {
          this.sweeping = undefined;
        });
    }, this.options.sweepIntervalMs);
    this.timer.unref();
  }

  /** Claims left-behind rows and extracts them; resolves with how many were claimed. */
  async sweepOnce(): Promise<number> {
    const room = Math.max(1, this.options.concurrency * 2);
    const claims = await this.repo.claimLeftBehind({
      batch: room,
      pendingGraceSeconds: this.pendingGraceSeconds,
      staleSeconds: this.staleSeconds,
      maxAttempts: this.maxAttempts,
    });
    // At most `concurrency` at once, like the uploads' queue.
    const waiting = [...claims];
    const lane = async (): Promise<void> => {
      for (let claim = waiting.shift(); claim; claim = waiting.shift()) {
        const next = claim;
        await this.track(() => this.extract(next));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, claims.length) }, lane));
    return claims.length;
  }

  /** Resolves when nothing is queued or running (tests, shutdown). */
  idle(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops the sweeper and taking work, and waits for running extractions; queued ids stay pending for the sweeper. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
    this.queued.clear();
    await this.sweeping;
    await this.idle();
  }

  /**
   * Each free lane takes up to CLAIM_BATCH queued ids, claims them in one
   * statement and extracts them one after the other; their outcomes are
   * recorded as each ends (the repository groups records made meanwhile).
   */
  private pump(): void {
    while (this.active < this.options.concurrency && this.queue.length > 0) {
      const ids = this.queue.splice(0, Math.max(1, Math.min(CLAIM_BATCH, Math.ceil(this.queue.length / this.options.concurrency))));
      void this.track(async () => {
        try {
          const claims = await this.repo.claimPendingMany(ids);
          const recorded: Promise<void>[] = [];
          for (const claim of claims) {
            // The next extraction starts while this one's outcome is recorded.
            recorded.push(this.repo.finishExtraction(claim.id, await this.outcomeOf(claim)));
            this.queued.delete(claim.id);
          }
          await settleAll(recorded, this.logger);
        } finally {
          for (const id of ids) this.queued.delete(id);
        }
      });
    }
  }

  private async track(work: () => Promise<void>): Promise<void> {
    this.active += 1;
    try {
      await work();
    } catch (err) {
      // The claim stays; the sweeper takes the row again once it is stale.
      this.logger.warn('text extraction could not record its result', { error: errorMessage(err) });
    } finally {
      this.active -= 1;
      this.pump();
      if (this.active === 0 && this.queue.length === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    }
  }

  private async extract(claim: TextClaim): Promise<void> {
    await this.repo.finishExtraction(claim.id, await this.outcomeOf(claim));
  }

  /** The text of a claimed document, or why there is none (never throws). */
  private async outcomeOf(claim: TextClaim): Promise<ExtractionOutcome> {
    const started = Date.now();
    try {
      const input = await readStoredObject(this.storage, claim.storageKey, this.options.maxBytes);
      const result = await extractText(input, claim.mimeType, { maxBytes: this.options.maxBytes, ...this.options.extract });
      this.logger.debug('document text extracted', { documentId: claim.id, chars: result.text.length, ms: Date.now() - started });
      return { status: 'completed', text: result.text, pages: result.pages };
    } catch (err) {
      if (err instanceof UnsupportedDocumentTypeError) return { status: 'not_applicable', error: null };
      // A missing tool may be installed later: leave the row for the sweeper.
      if (err instanceof ExtractorUnavailableError && claim.attempts < this.maxAttempts) return { status: 'pending', error: err.message };
      const message = isAppError(err) ? err.message : 'Text extraction failed';
      this.logger.warn('document text extraction failed', { documentId: claim.id, error: errorMessage(err) });
      return { status: 'failed', error: message };
    }
  }
}

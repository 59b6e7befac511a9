import type { JobMessageV1, ModelType } from '@docflow/contracts';
import { type ContentClient, DocumentTextError, type LlmClient, UsageTally } from '@docflow/llm-client';
import type { Logger } from '@docflow/service-kit';
import type { ExtractionJobPayload, JobDocument } from './extraction-payload';
import { DocumentFailure } from './failures';

/** What the job handlers use. */
export interface JobServices {
  llm: LlmClient;
  content: ContentClient;
  /** Documents of one job processed at once. */
  documentConcurrency: number;
  /** Text given inline in the payload is held to the same cap as stored text. */
  maxTextChars: number;
}

/** One running job. */
export interface JobContext {
  job: JobMessageV1;
  payload: ExtractionJobPayload;
  modelType?: ModelType;
  /** Aborted on shutdown, or when another document of the job failed. */
  signal: AbortSignal;
  logger: Logger;
  services: JobServices;
  /** Cost and tokens of every LLM call of the job. */
  usage: UsageTally;
}

export interface ResolvedText {
  text: string;
  title: string;
  pages: { page: number; text: string }[] | null;
  pageCount: number | null;
}

/** The document's text: the payload's own when given, else the stored text from the public API. */
export async function documentText(ctx: JobContext, doc: JobDocument): Promise<ResolvedText> {
  if (typeof doc.text === 'string' && doc.text.trim() !== '') {
    if (doc.text.length > ctx.services.maxTextChars) {
      throw new DocumentTextError(doc.id, 'too_large', `Document ${doc.id} has ${doc.text.length} characters of text; the limit is ${ctx.services.maxTextChars}`);
    }
    return { text: doc.text, title: doc.title ?? `Document ${doc.id}`, pages: null, pageCount: null };
  }
  const stored = await ctx.services.content.documentText(doc.id, { userId: ctx.payload.user_id, signal: ctx.signal });
  return { text: stored.text, title: doc.title ?? stored.title, pages: stored.pages, pageCount: stored.page_count };
}

/** Refuses a document with no text for an LLM task. */
export function requireText(documentId: number, text: string): string {
  if (!text.trim()) throw new DocumentTextError(documentId, 'empty', `Document ${documentId} has no text to work on`);
  return text;
}

/**
 * Runs `work` on every document, at most `concurrency` at once, results in
 * document order. All or nothing: the first failure aborts the others (via
 * the job signal) and is thrown, naming its document.
 */
export async function forEachDocument<T>(ctx: JobContext, abortJob: (reason: unknown) => void, work: (doc: JobDocument) => Promise<T>): Promise<T[]> {
  const docs = ctx.payload.documents;
  const results: T[] = new Array<T>(docs.length);
  let next = 0;
  let failure: DocumentFailure | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < docs.length && !ctx.signal.aborted) {
      const index = next++;
      const doc = docs[index] as JobDocument;
      try {
        results[index] = await work(doc);
      } catch (err) {
        if (failure === undefined && !ctx.signal.aborted) {
          failure = new DocumentFailure(doc.id, err);
          abortJob(failure);
        } else if (failure === undefined) {
          throw err;
        }
      }
    }
  };
  const lanes = Math.max(1, Math.min(ctx.services.documentConcurrency, docs.length));
  await Promise.all(Array.from({ length: lanes }, () => worker()));
  if (failure) throw failure;
  if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error('job aborted');
  return results;
}

/** Rounds a cost to 10 decimals. */
export function money(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}

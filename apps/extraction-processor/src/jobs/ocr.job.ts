import { documentText, forEachDocument, type JobContext } from './job-context';

/** `OCR`: the text the public API extracted for each document (OCR included for images); no LLM call. */
export async function runOcr(ctx: JobContext, abortJob: (reason: unknown) => void): Promise<Record<string, unknown>> {
  const documents = await forEachDocument(ctx, abortJob, async (doc) => {
    const source = await documentText(ctx, doc);
    return { document_id: doc.id, document_name: source.title, text: source.text, pages: source.pages, page_count: source.pageCount };
  });
  return { documents };
}

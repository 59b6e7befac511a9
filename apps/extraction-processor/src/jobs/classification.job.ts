import { classifyDocument, type DocumentClassificationResult } from '@docflow/llm-client';
import { documentText, forEachDocument, type JobContext, money, requireText } from './job-context';

export interface ClassifiedDocument {
  document_id: number;
  extraction_result: DocumentClassificationResult;
  metadata: { document_name: string; category: string; classification_method: 'llm' | 'local' };
  tokens_used: number;
  cost: number;
}

/**
 * `classification` (spec 4.5): per document, phase 1 classifies the text
 * against the built-in document types and the user's prompts, phase 2
 * matches it against the user's visible prompts. The first document's
 * result is also the job's `extraction_result` and `metadata`.
 */
export async function runClassification(ctx: JobContext, abortJob: (reason: unknown) => void): Promise<Record<string, unknown>> {
  const prompts = await ctx.services.content.visiblePrompts(ctx.payload.user_id, { signal: ctx.signal });
  const documents = await forEachDocument(ctx, abortJob, async (doc): Promise<ClassifiedDocument> => {
    const source = await documentText(ctx, doc);
    const out = await classifyDocument(ctx.services.llm, {
      text: requireText(doc.id, source.text),
      title: source.title,
      prompts,
      modelType: ctx.modelType,
      signal: ctx.signal,
    });
    ctx.usage.merge(out.usage);
    ctx.logger.info('document classified', {
      documentId: doc.id,
      documentType: out.result.document_type,
      matchedPromptId: out.result.matched_prompt_id,
      method: out.method,
    });
    return {
      document_id: doc.id,
      extraction_result: out.result,
      metadata: { document_name: source.title, category: out.result.category, classification_method: out.method },
      tokens_used: out.usage.tokens_used,
      cost: money(out.usage.cost),
    };
  });
  const first = documents[0] as ClassifiedDocument;
  const usage = ctx.usage.value;
  return {
    extraction_result: first.extraction_result,
    metadata: first.metadata,
    documents,
    ...(ctx.payload.collection_id !== undefined ? { collection_id: ctx.payload.collection_id } : {}),
    tokens_used: usage.tokens_used,
    cost: usage.cost,
    provider: usage.provider,
    model: usage.model,
  };
}

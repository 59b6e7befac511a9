/**
 * Documents, collections, prompts and classification jobs over the public
 * API (spec 4.2 to 4.5), for end-to-end tests and benchmarks. JSON calls go
 * through a WorkflowApi (any status comes back, nothing throws on one);
 * uploads are multipart.
 */
import type { ApiResponse, WorkflowApi } from './workflow-api';

/** `extraction_result` of a classified document (spec 4.5). */
export interface ClassificationResultView {
  classification?: Record<string, unknown>;
  document_type: string;
  category: string;
  key_features: string[];
  confidence: number;
  reasoning: string;
  matched_prompt_id: number | null;
  matched_prompt_title?: string | null;
  match_confidence: number;
  match_reasoning: string;
  [key: string]: unknown;
}

export interface ClassifiedDocumentView {
  document_id: number;
  extraction_result: ClassificationResultView;
  metadata: { document_name: string; category: string; classification_method: string };
  tokens_used: number;
  cost: number;
}

/** GET /jobs/{job_id}/status. */
export interface JobStatusBody {
  job_id: string;
  job_type: string;
  status: string;
  result: ({ extraction_result: ClassificationResultView | null; metadata: Record<string, unknown> | null; documents?: ClassifiedDocumentView[] } & Record<string, unknown>) | null;
  error: string | null;
}

export interface PromptBody {
  id: number;
  title: string;
  type: string;
  level: string;
  section: string | null;
  owner?: { id: number; username: string } | null;
  [key: string]: unknown;
}

/** POST /documents/upload with one text file; returns the new document's id. */
export async function uploadText(api: WorkflowApi, title: string, text: string, filename = `${title.replace(/\W+/g, '-').toLowerCase()}.txt`): Promise<number> {
  const form = new FormData();
  form.append('title', title);
  form.append('file', new Blob([text], { type: 'text/plain' }), filename);
  const res = await fetch(`${api.baseUrl}/documents/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.jwt ?? ''}` },
    body: form,
    signal: AbortSignal.timeout(15000),
  });
  const body = (await res.json()) as { id?: number };
  if (res.status !== 201 || typeof body.id !== 'number') throw new Error(`upload of ${filename} answered ${res.status}: ${JSON.stringify(body)}`);
  return body.id;
}

/** POST /collections/create-collection; returns the collection's id. */
export async function createCollection(api: WorkflowApi, name: string, documents: number[]): Promise<number> {
  const body = await api.expect<{ id: number; documents: number[] }>(201, 'POST', '/collections/create-collection', { data: { name, documents } });
  return body.id;
}

/** POST /prompts; returns the saved prompt. */
export async function createPrompt(api: WorkflowApi, fields: Record<string, unknown>): Promise<PromptBody> {
  return (await api.expect<{ data: PromptBody }>(201, 'POST', '/prompts', { data: fields })).data;
}

/** POST /jobs/collection/{id}/generate, answer as given. */
export function generateJob(
  api: WorkflowApi,
  collectionId: number,
  body: Record<string, unknown> = { job_type: 'classification' },
): Promise<ApiResponse<{ job_id: string; success: boolean; message: string }>> {
  return api.request('POST', `/jobs/collection/${collectionId}/generate`, body);
}

/** Polls GET /jobs/{job_id}/status until completed or failed; throws after `timeoutMs` with the last answer. */
export async function waitForJob(api: WorkflowApi, jobId: string, timeoutMs = 30000, pollMs = 100): Promise<JobStatusBody> {
  const deadline = Date.now() + timeoutMs;
  let last: ApiResponse<JobStatusBody> | undefined;
  while (Date.now() < deadline) {
    last = await api.request<JobStatusBody>('GET', `/jobs/${jobId}/status`);
    if (last.status !== 200) throw new Error(`GET /jobs/${jobId}/status answered ${last.status}: ${JSON.stringify(last.body)}`);
    if (last.body.status === 'completed' || last.body.status === 'failed') return last.body;
    await new Promise((r) => setTimeout(r, pollMs));
  }
  throw new Error(`job ${jobId} did not finish within ${timeoutMs} ms; last: ${JSON.stringify(last?.body)}`);
}

import type { ContentClient, LlmClient } from '@docflow/llm-client';

/** What the AI executors need: the LLM service and the public API's internal content endpoints. */
export interface AiExecutorDeps {
  llm: LlmClient;
  content: ContentClient;
  /**
   * Origins whose `/api/documents/{id}/download` (or `/signed-download`) URLs
   * name Docflow documents: PUBLIC_BASE_URL and PUBLIC_API_INTERNAL_URL.
   * Any other file_url is refused, never fetched.
   */
  documentOrigins: string[];
}

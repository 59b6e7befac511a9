import 'reflect-metadata';
import { IsBoolean, IsDefined, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';

/**
 * The public API's internal content routes (behind the service key), read by
 * the extraction and workflow processors and the LLM callers: document text,
 * prompts and RAG.
 */

/** GET {PUBLIC_API_INTERNAL_URL}/api/internal/documents/{id}/text?user_id= */
export const internalDocumentTextPath = (documentId: number): string => `/api/internal/documents/${documentId}/text`;
/** GET {PUBLIC_API_INTERNAL_URL}/api/internal/prompts?user_id=&type= */
export const INTERNAL_PROMPTS_PATH = '/api/internal/prompts';
/** POST, relative to /api: the RAG task types' routes. */
export const INTERNAL_RAG_QUERY_PATH = '/internal/rag/query';
export const INTERNAL_RAG_ENABLE_PATH = '/internal/rag/enable';

export interface DocumentPage {
  page: number;
  text: string;
}

/** The answer of the document text route. */
export interface InternalDocumentText {
  document_id: number;
  title: string;
  mime_type: string;
  /** `completed` when `text` is there; `pending`/`processing` while extraction runs; `failed` or `not_applicable` otherwise. */
  text_status: string;
  text: string | null;
  pages: DocumentPage[] | null;
  /** Why extraction failed, when it did. */
  text_error: string | null;
}

/** The extracted text of one document as a caller uses it (llm-client's ContentClient reads the route into this). */
export interface DocumentText {
  document_id: number;
  title: string;
  mime_type: string;
  text: string;
  /** Per-page text, when the extraction kept pages. */
  pages: DocumentPage[] | null;
  page_count: number | null;
  text_status: string;
}

export const PROMPT_TYPES = ['extraction', 'classification', 'summarization'] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];

/** A prompt as the internal prompts route gives it (spec 2.4). */
export interface InternalPrompt {
  id: number;
  title: string;
  type: string;
  level: string;
  section: string | null;
  description: string | null;
  roles: { role: 'system' | 'user'; prompt: string }[];
  tasks: string[];
  instructions: string[];
  outputFormat: string | null;
  exampleOutput: unknown;
}

export const DEFAULT_TOP_K = 5;
export const MAX_TOP_K = 20;
export const MAX_QUERY_CHARS = 2000;
const MAX_ID = 2147483647;

// Each field's checks run right to left and stop at the first that fails
// (parseBody of @docflow/service-kit), so a missing or mistyped value is named as such alone.

/** Body of POST /rag/query (public) and the base of the internal one. */
export class RagQueryBody {
  @Matches(/\S/, { message: 'query must not be blank' })
  @MaxLength(MAX_QUERY_CHARS)
  @IsString()
  @IsDefined({ message: 'query is required' })
  query!: string;

  @Max(MAX_TOP_K)
  @Min(1)
  @IsInt()
  @IsOptional()
  top_k?: number;

  /** Echoed back, so that a conversation can tie answers together. */
  @MaxLength(200)
  @MinLength(1)
  @IsString()
  @IsOptional()
  session_id?: string;
}

/** Body of POST /internal/rag/query (`rag_query_task`). */
export class InternalRagQueryBody extends RagQueryBody {
  @Max(MAX_ID)
  @Min(1)
  @IsInt()
  @IsDefined({ message: 'user_id is required' })
  user_id!: number;
}

/** Body of POST /internal/rag/enable (`rag_enable_task`). */
export class InternalRagEnableBody {
  @Max(MAX_ID)
  @Min(1)
  @IsInt()
  @IsDefined({ message: 'document_id is required' })
  document_id!: number;

  @Max(MAX_ID)
  @Min(1)
  @IsInt()
  @IsDefined({ message: 'user_id is required' })
  user_id!: number;

  @IsBoolean()
  @IsOptional()
  force_reprocess?: boolean;
}

import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';

export const MODEL_TYPES = ['provider_a', 'provider_b', 'provider_c'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export class LlmMessage {
  @IsIn(['system', 'user', 'assistant', 'tool'])
  role!: 'system' | 'user' | 'assistant' | 'tool';

  @IsString()
  content!: string;
}

export class FileUrlRef {
  @IsString()
  url!: string;

  @IsOptional() @IsString()
  mime_type?: string;

  @IsOptional() @IsString()
  name?: string;
}

export class DataShieldOptions {
  @IsBoolean()
  enabled!: boolean;

  @IsOptional() @IsArray() @IsString({ each: true })
  entity_types?: string[];
}

/**
 * Body of POST {llm_url}/api/v1/extract. Either `content` + `prompt_template`
 * (legacy) or `messages`; both forms are supported indefinitely (spec 9).
 * Which form is present is checked by `extractRequestForm`, which gives 422.
 */
export class ExtractRequest {
  @IsOptional() @IsString()
  content?: string;

  @IsOptional() @IsString()
  prompt_template?: string;

  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => LlmMessage)
  messages?: LlmMessage[];

  @IsOptional() @IsIn(MODEL_TYPES as unknown as string[])
  model_type?: ModelType;

  @IsOptional() @IsBoolean()
  redact_pii?: boolean;

  @IsOptional() @IsBoolean()
  legacy_format?: boolean;

  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => FileUrlRef)
  file_urls?: FileUrlRef[];

  @IsOptional() @IsObject() @ValidateNested() @Type(() => DataShieldOptions)
  data_shield?: DataShieldOptions;
}

export type ExtractRequestForm = 'legacy' | 'messages' | 'none';

export function extractRequestForm(req: ExtractRequest): ExtractRequestForm {
  if (Array.isArray(req.messages) && req.messages.length > 0) return 'messages';
  if (typeof req.content === 'string' && typeof req.prompt_template === 'string') return 'legacy';
  return 'none';
}

export interface ExtractResponse {
  content: string | Record<string, unknown> | unknown[];
  model: string;
  provider: string;
  cost: number;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** The internal services' error body (spec 7). */
export interface InternalErrorBody {
  error: string;
  message: string;
  details?: Record<string, unknown>;
}

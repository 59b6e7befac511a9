import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, Min, ValidateNested } from 'class-validator';

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

  @IsOptional()
  @IsString()
  mime_type?: string;

  @IsOptional()
  @IsString()
  name?: string;
}

export class DataShieldOptions {
  @IsBoolean()
  enabled!: boolean;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  entity_types?: string[];

  /**
   * Shielding is required by policy (spec 2.5 `data_shield_policy`): when the
   * LLM service cannot shield (DATA_SHIELD_DISABLED) it refuses the call with
   * `data_shield_policy_violation` instead of sending the text in clear.
   */
  @IsOptional()
  @IsBoolean()
  required?: boolean;

  /** The tenant whose detectors apply: the owning user's id, as a string. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_.:-]{1,100}$/)
  tenant?: string;

  /** The user the call acts for, for the audit row. */
  @IsOptional()
  @IsInt()
  @Min(1)
  actor_user_id?: number;

  /** The entry point (spec 4.17 rule 6), for the audit row: classification, summarization, extraction, agent, ... */
  @IsOptional()
  @IsString()
  @Matches(/^[a-z_]{1,40}$/)
  entry_point?: string;
}

/** What a shielded call sent the provider (stored by shielded runs as `_prompt_diagnostics`, spec 4.17 rule 6). */
export interface DataShieldDiagnostics {
  shielded: true;
  /** The prompt as the provider received it: tokens in place of the sensitive values. */
  messages: { role: string; content: string }[];
  entity_counts: Record<string, number>;
  layers: string[];
}

/**
 * Body of POST {llm_url}/api/v1/extract. Either `content` + `prompt_template`
 * (legacy) or `messages`; both forms are supported indefinitely (spec 9).
 * Which form is present is checked by `extractRequestForm`, which gives 422.
 */
export class ExtractRequest {
  @IsOptional()
  @IsString()
  content?: string;

  @IsOptional()
  @IsString()
  prompt_template?: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => LlmMessage)
  messages?: LlmMessage[];

  @IsOptional()
  @IsIn(MODEL_TYPES as unknown as string[])
  model_type?: ModelType;

  @IsOptional()
  @IsBoolean()
  redact_pii?: boolean;

  @IsOptional()
  @IsBoolean()
  legacy_format?: boolean;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FileUrlRef)
  file_urls?: FileUrlRef[];

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DataShieldOptions)
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
  /** Present when the call was shielded. */
  data_shield?: DataShieldDiagnostics;
}

/** The internal services' error body (spec 7). */
export interface InternalErrorBody {
  error: string;
  message: string;
  details?: Record<string, unknown>;
}

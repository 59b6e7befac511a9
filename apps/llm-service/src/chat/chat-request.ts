import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, Matches, ValidateBy, ValidateNested } from 'class-validator';
import { DataShieldOptions, FileUrlRef, MODEL_TYPES } from '@docflow/contracts';
import type { ModelType } from '@docflow/contracts';
import { GenerationOptions } from '../completion/request-options';
import type { ToolChoice } from '../providers/provider';

export class ToolFunctionDto {
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'function.name must be 1 to 64 letters, digits, _ or -' })
  name!: string;

  @IsOptional()
  @IsString()
  description?: string;

  @IsOptional()
  @IsObject()
  parameters?: Record<string, unknown>;
}

export class ToolDto {
  @IsIn(['function'])
  type!: 'function';

  @IsObject()
  @ValidateNested()
  @Type(() => ToolFunctionDto)
  function!: ToolFunctionDto;
}

export class ToolCallFunctionDto {
  @IsString()
  name!: string;

  @IsString()
  arguments!: string;
}

export class ToolCallDto {
  @IsString()
  id!: string;

  @IsIn(['function'])
  type!: 'function';

  @IsObject()
  @ValidateNested()
  @Type(() => ToolCallFunctionDto)
  function!: ToolCallFunctionDto;
}

export class ChatMessageDto {
  @IsIn(['system', 'user', 'assistant', 'tool'])
  role!: 'system' | 'user' | 'assistant' | 'tool';

  /** May be null on an assistant turn that only called tools. */
  @IsOptional()
  @IsString()
  content?: string | null;

  @IsOptional()
  @IsString()
  tool_call_id?: string;

  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ToolCallDto)
  tool_calls?: ToolCallDto[];
}

function isToolChoice(value: unknown): value is ToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return true;
  if (value === null || typeof value !== 'object') return false;
  const v = value as { type?: unknown; function?: { name?: unknown } };
  return v.type === 'function' && typeof v.function?.name === 'string';
}

/**
 * Body of POST /api/v1/chat: `messages`, or the legacy `content` plus
 * `prompt_template` (spec 9: the LLM service accepts both); which form is
 * present is checked by `chatRequestForm`, which gives 422 (spec 7).
 */
export class ChatBody extends GenerationOptions {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages?: ChatMessageDto[];

  @IsOptional()
  @IsString()
  content?: string;

  @IsOptional()
  @IsString()
  prompt_template?: string;

  /** Shields the conversation as `data_shield.enabled` does, like extract's flag. */
  @IsOptional()
  @IsBoolean()
  redact_pii?: boolean;

  /** Files to read with the conversation (issue 19, item 1), as on extract. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @ValidateNested({ each: true })
  @Type(() => FileUrlRef)
  file_urls?: FileUrlRef[];

  @IsOptional()
  @IsIn(MODEL_TYPES as unknown as string[])
  model_type?: ModelType;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(128)
  @ValidateNested({ each: true })
  @Type(() => ToolDto)
  tools?: ToolDto[];

  @IsOptional()
  @ValidateBy({
    name: 'isToolChoice',
    validator: { validate: (v: unknown) => isToolChoice(v), defaultMessage: () => "tool_choice must be 'auto', 'none', 'required' or {type: 'function', function: {name}}" },
  })
  tool_choice?: ToolChoice;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DataShieldOptions)
  data_shield?: DataShieldOptions;
}

import { IsIn, IsInt, IsNumber, IsOptional, Max, Min, ValidateBy, ValidationOptions } from 'class-validator';
import type { LocalTask } from '../providers/provider';

export const LOCAL_TASKS: LocalTask[] = ['summarize', 'classify', 'extract', 'chat'];

export type ResponseFormat = 'json' | 'text' | { type: 'json_object' | 'json_schema' | 'text' };

export function isResponseFormat(value: unknown): value is ResponseFormat {
  if (value === 'json' || value === 'text') return true;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const type = (value as { type?: unknown }).type;
  return type === 'json_object' || type === 'json_schema' || type === 'text';
}

export function IsResponseFormat(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isResponseFormat',
      validator: {
        validate: (value: unknown) => isResponseFormat(value),
        defaultMessage: () => "response_format must be 'json', 'text' or {type: 'json_object' | 'json_schema' | 'text'}",
      },
    },
    options,
  );
}

/** Request fields the extract and chat bodies share, beyond the contract's. */
export class GenerationOptions {
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(200000)
  max_tokens?: number;

  @IsOptional()
  @IsResponseFormat()
  response_format?: ResponseFormat;

  /** Tells the local engine which task to do; remote providers ignore it. */
  @IsOptional()
  @IsIn(LOCAL_TASKS)
  task_hint?: LocalTask;
}

/** JSON is asked for explicitly: `output_format: json` or a JSON `response_format`. */
export function explicitJson(outputFormat: string | undefined, responseFormat: ResponseFormat | undefined): boolean | undefined {
  if (outputFormat === 'json') return true;
  if (outputFormat === 'text') return false;
  if (responseFormat === undefined) return undefined;
  if (responseFormat === 'json') return true;
  if (responseFormat === 'text') return false;
  return responseFormat.type !== 'text';
}

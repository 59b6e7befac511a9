import { Type } from 'class-transformer';
import { BadRequestError, parseBody } from '@docflow/service-kit';
import { ArrayMaxSize, IsArray, IsIn, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { PROMPT_LEVELS, PROMPT_TYPES, RTIO_OUTPUT_FORMATS, RTIO_ROLES, type PromptLevel, type PromptType, type RtioOutputFormat, type RtioRoleName } from '@docflow/rtio';

const MAX_ROLES = 20;
const MAX_ITEMS = 50;
const MAX_PROMPT_CHARS = 20000;
const MAX_ITEM_CHARS = 5000;

const oneOf = (name: string, values: readonly string[]) => ({ message: `${name} must be one of ${values.join(', ')}` });

/**
 * Validates the field only when it is sent, but refuses null: for fields
 * that cannot be empty (unlike `@IsOptional()`, which lets null through to
 * a write that cannot store it).
 */
const IfSent = () => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** A title that is more than whitespace (it is stored trimmed). */
const NOT_BLANK = /\S/;

export class RtioRoleBody {
  @IsIn(RTIO_ROLES as unknown as string[], oneOf('role', RTIO_ROLES))
  role!: RtioRoleName;

  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_PROMPT_CHARS)
  prompt!: string;
}

/** The fields every prompt write may carry (spec 2.4), all optional. */
class PromptFieldsBody {
  @IsOptional()
  @IsString()
  @MaxLength(255)
  section?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(10000)
  description?: string | null;

  @IfSent()
  @IsArray()
  @ArrayMaxSize(MAX_ROLES)
  @ValidateNested({ each: true })
  @Type(() => RtioRoleBody)
  roles?: RtioRoleBody[];

  @IfSent()
  @IsArray()
  @ArrayMaxSize(MAX_ITEMS)
  @IsString({ each: true })
  @MaxLength(MAX_ITEM_CHARS, { each: true })
  tasks?: string[];

  @IfSent()
  @IsArray()
  @ArrayMaxSize(MAX_ITEMS)
  @IsString({ each: true })
  @MaxLength(MAX_ITEM_CHARS, { each: true })
  instructions?: string[];

  @IfSent()
  @IsIn(RTIO_OUTPUT_FORMATS as unknown as string[], oneOf('outputFormat', RTIO_OUTPUT_FORMATS))
  outputFormat?: RtioOutputFormat;

  @IsOptional()
  @IsObject({ message: 'exampleOutput must be an object' })
  exampleOutput?: Record<string, unknown> | null;

  @IfSent()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  version?: string;
}

/** `data` of POST /prompts. */
export class CreatePromptBody extends PromptFieldsBody {
  @IsString()
  @IsNotEmpty()
  @Matches(NOT_BLANK, { message: 'title must not be blank' })
  @MaxLength(255)
  title!: string;

  @IsIn(PROMPT_TYPES as unknown as string[], oneOf('type', PROMPT_TYPES))
  type!: PromptType;

  /** Required (spec 2.4); a non-admin's `system` becomes `user`. */
  @IsIn(PROMPT_LEVELS as unknown as string[], oneOf('level', PROMPT_LEVELS))
  level!: PromptLevel;
}

/** `data` of PUT /prompts/{id}: every field optional. */
export class UpdatePromptBody extends PromptFieldsBody {
  @IfSent()
  @IsString()
  @IsNotEmpty()
  @Matches(NOT_BLANK, { message: 'title must not be blank' })
  @MaxLength(255)
  title?: string;

  @IfSent()
  @IsIn(PROMPT_TYPES as unknown as string[], oneOf('type', PROMPT_TYPES))
  type?: PromptType;

  @IfSent()
  @IsIn(PROMPT_LEVELS as unknown as string[], oneOf('level', PROMPT_LEVELS))
  level?: PromptLevel;
}

/** Largest exampleOutput accepted, serialised. */
export const MAX_EXAMPLE_OUTPUT_BYTES = 64 * 1024;

/**
 * The write fields with the column spellings `output_format` and
 * `example_output` read as `outputFormat` and `exampleOutput` (the API's
 * names win when both are sent).
 */
export function withApiSpellings(fields: Record<string, unknown>): Record<string, unknown> {
  const out = { ...fields };
  if (out['outputFormat'] === undefined && out['output_format'] !== undefined) out['outputFormat'] = out['output_format'];
  if (!('exampleOutput' in out) && 'example_output' in out) out['exampleOutput'] = out['example_output'];
  delete out['output_format'];
  delete out['example_output'];
  return out;
}

/**
 * The body of POST /prompts (CreatePromptBody) or PUT /prompts/{id}
 * (UpdatePromptBody), read with parseBody in the route: 400 `Invalid prompt`
 * listing every problem, then the serialised size of `exampleOutput`.
 */
export function parsePromptBody<T extends CreatePromptBody | UpdatePromptBody>(cls: new () => T, fields: Record<string, unknown>): T {
  const body = parseBody(cls, withApiSpellings(fields), { message: 'Invalid prompt' });
  const example = body.exampleOutput;
  if (example !== undefined && example !== null && Buffer.byteLength(JSON.stringify(example)) > MAX_EXAMPLE_OUTPUT_BYTES) {
    throw BadRequestError.withErrors('Invalid prompt', [`exampleOutput must be at most ${MAX_EXAMPLE_OUTPUT_BYTES} bytes as JSON`]);
  }
  return body;
}

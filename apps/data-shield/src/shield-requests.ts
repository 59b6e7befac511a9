import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, MaxLength, Min, ValidateNested } from 'class-validator';

const ENTITY_TYPE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;

/** Who and what the call is for; only counts and these names reach the audit row. */
export class CallContextDto {
  @IsOptional()
  @IsString()
  @MaxLength(40)
  endpoint?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  model?: string;

  @IsOptional()
  @IsString()
  @MaxLength(40)
  provider?: string;
}

class ShieldOptionsDto {
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @Matches(ENTITY_TYPE, { each: true, message: 'entity_types must be upper-case entity type names' })
  entity_types?: string[];

  /** The tenant whose detectors apply: the owning user's id. */
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9_.:-]{1,100}$/)
  tenant?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  actor_user_id?: number;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CallContextDto)
  context?: CallContextDto;
}

/** POST /api/v1/tokenise */
export class TokeniseBody extends ShieldOptionsDto {
  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  texts!: string[];
}

/** POST /api/v1/restore */
export class RestoreBody {
  @IsString()
  scope_id!: string;

  @IsArray()
  @ArrayMaxSize(1000)
  @IsString({ each: true })
  texts!: string[];
}

/** POST /api/v1/restore-stream: one chunk of a streamed reply; `final` flushes what was held back. */
export class RestoreStreamBody {
  @IsString()
  scope_id!: string;

  @IsArray()
  @ArrayMaxSize(10000)
  @IsString({ each: true })
  chunks!: string[];
}

/** POST /api/v1/detect (preview) */
export class DetectBody extends ShieldOptionsDto {
  @IsString()
  text!: string;

  @IsOptional()
  @IsIn(['preview'])
  purpose?: 'preview';
}

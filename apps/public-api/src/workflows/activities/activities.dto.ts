import { IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { ACTIVITY_LEVELS, ACTIVITY_STATUSES, type ActivityLevel, type ActivityStatus } from './activity-vocabulary';

const MAX_DEADLINE_SECONDS = 30 * 86400;

/** Optional, but not nullable: unlike @IsOptional, a null is validated (and refused) rather than skipped. */
const IfPresent = (): PropertyDecorator => ValidateIf((_object: object, value: unknown) => value !== undefined);

/** Names are stored trimmed, so one of blanks only would be stored empty. */
const NotBlank = (): PropertyDecorator => Matches(/\S/, { message: '$property must not be blank' });

/** `data` of POST /activities (spec 4.6). */
export class CreateActivityBody {
  @IsString()
  @IsNotEmpty()
  @NotBlank()
  @MaxLength(255)
  name!: string;

  @IsObject({ message: 'workflow_definition is required and must be an object' })
  workflow_definition!: Record<string, unknown>;

  @IsOptional()
  @IsString()
  @MaxLength(10000)
  description?: string | null;

  @IsOptional()
  @IsIn(ACTIVITY_STATUSES as unknown as string[], { message: `status must be one of ${ACTIVITY_STATUSES.join(', ')}` })
  status?: ActivityStatus;

  @IsOptional()
  @IsIn(ACTIVITY_LEVELS as unknown as string[], { message: `level must be one of ${ACTIVITY_LEVELS.join(', ')}` })
  level?: ActivityLevel;

  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  workflow_type?: string;

  /** null: no deadline. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_DEADLINE_SECONDS)
  execution_deadline_seconds?: number | null;

  @IsOptional()
  @IsObject()
  data_shield_policy?: Record<string, unknown> | null;
}

/** `data` of PUT /activities/{id}: every field optional; only description, execution_deadline_seconds and data_shield_policy may be null. */
export class UpdateActivityBody {
  @IfPresent()
  @IsString()
  @IsNotEmpty()
  @NotBlank()
  @MaxLength(255)
  name?: string;

  @IfPresent()
  @IsObject({ message: 'workflow_definition must be an object' })
  workflow_definition?: Record<string, unknown>;

  @IsOptional()
  @IsString()
  @MaxLength(10000)
  description?: string | null;

  @IfPresent()
  @IsIn(ACTIVITY_STATUSES as unknown as string[], { message: `status must be one of ${ACTIVITY_STATUSES.join(', ')}` })
  status?: ActivityStatus;

  @IfPresent()
  @IsIn(ACTIVITY_LEVELS as unknown as string[], { message: `level must be one of ${ACTIVITY_LEVELS.join(', ')}` })
  level?: ActivityLevel;

  @IfPresent()
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  workflow_type?: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_DEADLINE_SECONDS)
  execution_deadline_seconds?: number | null;

  @IsOptional()
  @IsObject()
  data_shield_policy?: Record<string, unknown> | null;
}

/** Body of POST /activities/{id}/instantiate. */
export class InstantiateActivityBody {
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @NotBlank()
  @MaxLength(255)
  name?: string;

  @IsOptional()
  @IsString()
  @MaxLength(10000)
  description?: string | null;
}

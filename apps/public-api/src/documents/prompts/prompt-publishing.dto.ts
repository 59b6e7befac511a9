import { ArrayMaxSize, IsArray, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';

/** Body of POST /prompts/{id}/publish and /prompts/{id}/lint (all optional; `{data: {...}}` or the fields alone). */
export class PublishPromptBody {
  /** `{{key}}` placeholders the prompt's runs supply in `prompt_data`; any other placeholder is unresolved. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @Matches(/^[A-Za-z0-9_.-]{1,64}$/, { each: true, message: 'placeholders: each must be 1 to 64 letters, digits, _ . or -' })
  placeholders?: string[];

  /** A super administrator publishes despite the linter's errors, saying why (audited `prompt.override_used`). */
  @IsOptional()
  @IsString()
  @MinLength(10, { message: 'override_reason: say why, in at least 10 characters' })
  @MaxLength(1000)
  override_reason?: string;
}

import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsNotEmpty, IsNumber, IsObject, IsOptional, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';

export class ClassificationResultBody {
  @IsString({ message: 'classification_result.document_type is required' })
  @IsNotEmpty()
  @MaxLength(200)
  document_type!: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  category?: string | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(500, { each: true })
  key_features?: string[] | null;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1)
  confidence?: number | null;
}

/** Body of POST /prompts/generate-rtio (spec 4.4): both fields required. */
export class GenerateRtioBody {
  @IsInt({ message: 'document_id is required and must be an integer' })
  @Min(1, { message: 'document_id must be a positive integer' })
  document_id!: number;

  @IsObject({ message: 'classification_result is required and must be an object' })
  @ValidateNested()
  @Type(() => ClassificationResultBody)
  classification_result!: ClassificationResultBody;
}

import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { BaseConfig, EnvInt, Secret } from '@docflow/service-kit';

export class ExtractionProcessorConfig extends BaseConfig {
  @EnvInt() @IsInt() @Min(1) @Max(65535)
  EXTRACTION_PROCESSOR_PORT = 8050;

  @IsString() @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  /** Unacknowledged jobs one replica holds at most. */
  @EnvInt() @IsInt() @Min(1) @Max(256)
  EXTRACTION_PREFETCH = 4;

  @IsString()
  LLM_SERVICE_URL = 'http://127.0.0.1:8020';

  @Secret()
  SERVICE_KEY!: string;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;
}

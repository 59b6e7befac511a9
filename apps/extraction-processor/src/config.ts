import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { AiClientsConfig } from '@docflow/llm-client';
import { EnvInt, Secret } from '@docflow/service-kit';

/** The extraction processor's settings; the LLM and document ones come from AiClientsConfig. */
export class ExtractionProcessorConfig extends AiClientsConfig {
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  EXTRACTION_PROCESSOR_PORT = 8050;

  @IsString()
  @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  /** Unacknowledged jobs one replica holds (and runs) at most. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(256)
  EXTRACTION_PREFETCH = 4;

  /** Documents of one job processed at once. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(32)
  EXTRACTION_DOCUMENT_CONCURRENCY = 2;

  /** Documents one job may name. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(10000)
  EXTRACTION_MAX_DOCUMENTS = 200;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;
}

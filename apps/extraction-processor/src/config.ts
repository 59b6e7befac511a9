import { IsInt, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { BaseConfig, EnvInt, Secret } from '@docflow/service-kit';

const URL_OPTIONS = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

export class ExtractionProcessorConfig extends BaseConfig {
  @EnvInt() @IsInt() @Min(1) @Max(65535)
  EXTRACTION_PROCESSOR_PORT = 8050;

  @IsString() @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  /** Unacknowledged jobs one replica holds (and runs) at most. */
  @EnvInt() @IsInt() @Min(1) @Max(256)
  EXTRACTION_PREFETCH = 4;

  /** Documents of one job processed at once. */
  @EnvInt() @IsInt() @Min(1) @Max(32)
  EXTRACTION_DOCUMENT_CONCURRENCY = 2;

  /** Documents one job may name. */
  @EnvInt() @IsInt() @Min(1) @Max(10000)
  EXTRACTION_MAX_DOCUMENTS = 200;

  @IsUrl(URL_OPTIONS)
  LLM_SERVICE_URL = 'http://127.0.0.1:8020';

  /** One call to the LLM service; it should outlast the service's own provider retries. */
  @EnvInt() @IsInt() @Min(1000) @Max(3600000)
  LLM_SERVICE_TIMEOUT_MS = 240000;

  /** The public API, for the internal document-text and prompts endpoints. */
  @IsUrl(URL_OPTIONS)
  PUBLIC_API_INTERNAL_URL = 'http://127.0.0.1:1337';

  /** A document with more characters of text is refused. */
  @EnvInt() @IsInt() @Min(1000) @Max(50000000)
  DOCUMENT_TEXT_MAX_CHARS = 400000;

  /** A document with more pages is refused. */
  @EnvInt() @IsInt() @Min(1) @Max(100000)
  DOCUMENT_MAX_PAGES = 500;

  /** How long a job waits for a document whose text is still being extracted. */
  @EnvInt() @IsInt() @Min(0) @Max(600000)
  DOCUMENT_TEXT_WAIT_MS = 60000;

  @EnvInt() @IsInt() @Min(10) @Max(60000)
  DOCUMENT_TEXT_POLL_MS = 1000;

  @Secret()
  SERVICE_KEY!: string;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;
}

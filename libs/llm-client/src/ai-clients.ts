import { IsInt, IsUrl, Max, Min } from 'class-validator';
import { BaseConfig, EnvInt, type HealthCheck, httpHealthCheck, type Logger, Secret } from '@docflow/service-kit';
import { type ContentClient, createContentClient } from './content-client';
import { createLlmClient, type LlmClient } from './llm-client';

const URL_OPTIONS = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

/**
 * The settings of a processor that runs AI work: where the LLM service and
 * the public API's internal document endpoints are, and the bounds on the
 * documents it reads. The processors' configs extend it.
 */
export class AiClientsConfig extends BaseConfig {
  @Secret()
  SERVICE_KEY!: string;

  @IsUrl(URL_OPTIONS)
  LLM_SERVICE_URL = 'http://127.0.0.1:8020';

  /** One call to the LLM service; it should outlast the service's own provider retries. */
  @EnvInt()
  @IsInt()
  @Min(1000)
  @Max(3600000)
  LLM_SERVICE_TIMEOUT_MS = 240000;

  /** The public API, for the internal document-text and prompts endpoints. */
  @IsUrl(URL_OPTIONS)
  PUBLIC_API_INTERNAL_URL = 'http://127.0.0.1:1337';

  /** A document with more characters of text is refused. */
  @EnvInt()
  @IsInt()
  @Min(1000)
  @Max(50000000)
  DOCUMENT_TEXT_MAX_CHARS = 400000;

  /** A document with more pages is refused. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100000)
  DOCUMENT_MAX_PAGES = 500;

  /** How long a job waits for a document whose text is still being extracted. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(600000)
  DOCUMENT_TEXT_WAIT_MS = 60000;

  @EnvInt()
  @IsInt()
  @Min(10)
  @Max(60000)
  DOCUMENT_TEXT_POLL_MS = 1000;
}

export type AiClientSettings = Pick<
  AiClientsConfig,
  'SERVICE_KEY' | 'LLM_SERVICE_URL' | 'LLM_SERVICE_TIMEOUT_MS' | 'PUBLIC_API_INTERNAL_URL' | 'DOCUMENT_TEXT_MAX_CHARS' | 'DOCUMENT_MAX_PAGES' | 'DOCUMENT_TEXT_WAIT_MS' | 'DOCUMENT_TEXT_POLL_MS'
>;

/** The LLM service and content clients of a processor, from its settings (close both on shutdown). */
export function createAiClients(config: AiClientSettings, logger: Logger): { llm: LlmClient; content: ContentClient } {
  return {
    llm: createLlmClient({ baseUrl: config.LLM_SERVICE_URL, serviceKey: config.SERVICE_KEY, timeoutMs: config.LLM_SERVICE_TIMEOUT_MS, logger }),
    content: createContentClient({
      baseUrl: config.PUBLIC_API_INTERNAL_URL,
      serviceKey: config.SERVICE_KEY,
      logger,
      maxChars: config.DOCUMENT_TEXT_MAX_CHARS,
      maxPages: config.DOCUMENT_MAX_PAGES,
      textWaitMs: config.DOCUMENT_TEXT_WAIT_MS,
      pollMs: config.DOCUMENT_TEXT_POLL_MS,
    }),
  };
}

/** The services a processor's AI work calls, as checks behind its /_health (runtime contract: "the services it calls"). */
export function aiClientsHealthChecks(config: Pick<AiClientSettings, 'LLM_SERVICE_URL' | 'PUBLIC_API_INTERNAL_URL'>): HealthCheck[] {
  return [httpHealthCheck('llm-service', config.LLM_SERVICE_URL), httpHealthCheck('public-api', config.PUBLIC_API_INTERNAL_URL)];
}

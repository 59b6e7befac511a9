import { Transform } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min, ValidateBy, ValidationOptions } from 'class-validator';
import { BaseConfig, EnvBoolean, EnvInt, EnvList, Secret } from '@docflow/service-kit';
import { MODEL_TYPES } from '@docflow/contracts';
import type { ModelType } from '@docflow/contracts';
import { isPriceTable } from './pricing/pricing';
import type { PriceTable } from './pricing/pricing';

export const PROVIDER_KINDS = ['openai', 'anthropic'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** Parses a JSON object from the environment; anything unparsable stays as given so validation names it. */
function EnvJson(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  });
}

function IsPriceTable(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isPriceTable',
      validator: {
        validate: (value: unknown) => isPriceTable(value),
        defaultMessage: () => 'must be a JSON object mapping model names to {input_per_1k, output_per_1k} (non-negative numbers)',
      },
    },
    options,
  );
}

const URL_OPTIONS = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

export class LlmServiceConfig extends BaseConfig {
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  LLM_SERVICE_PORT = 8020;

  @Secret()
  SERVICE_KEY!: string;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  LLM_PROVIDER_A_URL?: string;

  @IsIn(PROVIDER_KINDS)
  LLM_PROVIDER_A_KIND: ProviderKind = 'openai';

  /** Sent to the provider only; never logged nor returned. Optional: local OpenAI-compatible servers need none. */
  @IsOptional()
  @IsString()
  LLM_PROVIDER_A_API_KEY?: string;

  @IsOptional()
  @IsString()
  LLM_PROVIDER_A_MODEL?: string;

  /** Embedding model of an `openai` provider (default text-embedding-3-small). */
  @IsOptional()
  @IsString()
  LLM_PROVIDER_A_EMBEDDING_MODEL?: string;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  LLM_PROVIDER_B_URL?: string;

  @IsIn(PROVIDER_KINDS)
  LLM_PROVIDER_B_KIND: ProviderKind = 'openai';

  @IsOptional()
  @IsString()
  LLM_PROVIDER_B_API_KEY?: string;

  @IsOptional()
  @IsString()
  LLM_PROVIDER_B_MODEL?: string;

  /** Embedding model of an `openai` provider (default text-embedding-3-small). */
  @IsOptional()
  @IsString()
  LLM_PROVIDER_B_EMBEDDING_MODEL?: string;

  @IsOptional()
  @IsUrl(URL_OPTIONS)
  LLM_PROVIDER_C_URL?: string;

  @IsIn(PROVIDER_KINDS)
  LLM_PROVIDER_C_KIND: ProviderKind = 'openai';

  @IsOptional()
  @IsString()
  LLM_PROVIDER_C_API_KEY?: string;

  @IsOptional()
  @IsString()
  LLM_PROVIDER_C_MODEL?: string;

  /** Embedding model of an `openai` provider (default text-embedding-3-small). */
  @IsOptional()
  @IsString()
  LLM_PROVIDER_C_EMBEDDING_MODEL?: string;

  /** Per attempt. */
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(600000)
  LLM_TIMEOUT_MS = 60000;

  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(10)
  LLM_MAX_RETRIES = 2;

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(60000)
  LLM_RETRY_BASE_MS = 250;

  /** Longest Retry-After the service waits for inside one request; a longer one ends the retries with 503 at once. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(600000)
  LLM_MAX_RETRY_WAIT_MS = 20000;

  /** Extra or overriding prices: `{"model": {"input_per_1k": 0.001, "output_per_1k": 0.002}}` (USD). */
  @IsOptional()
  @EnvJson()
  @IsPriceTable()
  LLM_PRICES?: PriceTable;

  @IsUrl(URL_OPTIONS)
  DATA_SHIELD_URL = 'http://127.0.0.1:8030';

  /** `http`: the gateway at DATA_SHIELD_URL; `in_process`: the same engine inside this service (spec 4.17 rule 9). */
  @IsIn(['http', 'in_process'])
  DATA_SHIELD_MODE: 'http' | 'in_process' = 'http';

  /** Shielding off: requests asking for it are served in clear (a warning at start), those a policy requires are refused. */
  @EnvBoolean()
  @IsBoolean()
  DATA_SHIELD_DISABLED = false;

  /** With in_process: the public API, for tenant detectors and audit rows. Default: PUBLIC_API_INTERNAL_URL. */
  @IsOptional()
  @IsUrl(URL_OPTIONS)
  DMS_URL?: string;

  @IsUrl(URL_OPTIONS)
  PUBLIC_API_INTERNAL_URL = 'http://127.0.0.1:1337';

  /** The public API's base URL as its signed document URLs carry it: those URLs are fetched for file_urls even on a private address. */
  @IsUrl(URL_OPTIONS)
  PUBLIC_BASE_URL = 'http://127.0.0.1:1337';

  /** `host:port` entries file_urls may reach although private (as for REST nodes). */
  @EnvList()
  @IsArray()
  @IsString({ each: true })
  REST_API_ALLOWED_HOSTS: string[] = [];

  /** The largest file a file_url may bring, in bytes (default 10 MiB). */
  @EnvInt()
  @IsInt()
  @Min(1024)
  @Max(50 * 1024 * 1024)
  LLM_FILE_MAX_BYTES = 10 * 1024 * 1024;

  /** Characters of extracted text one file adds to the prompt at most (the rest is cut, and the cut said). */
  @EnvInt()
  @IsInt()
  @Min(1000)
  @Max(2_000_000)
  LLM_FILE_MAX_CHARS = 200_000;

  /** With in_process: no data_shield.tokenise audit rows. */
  @EnvBoolean()
  @IsBoolean()
  DATA_SHIELD_AUDIT_DISABLED = false;

  @EnvInt()
  @IsInt()
  @Min(10)
  @Max(86400)
  DATA_SHIELD_SCOPE_TTL_SECONDS = 1800;

  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(3600)
  DATA_SHIELD_TENANT_CACHE_SECONDS = 30;
}

export interface ProviderSettings {
  modelType: ModelType;
  kind: ProviderKind;
  url?: string;
  apiKey?: string;
  model?: string;
  embeddingModel?: string;
}

/** The three `model_type` slots as configured (runtime contract, "LLM providers"). */
export function providerSettings(config: LlmServiceConfig): ProviderSettings[] {
  const [a, b, c] = MODEL_TYPES;
  return [
    {
      modelType: a,
      kind: config.LLM_PROVIDER_A_KIND,
      url: config.LLM_PROVIDER_A_URL,
      apiKey: config.LLM_PROVIDER_A_API_KEY,
      model: config.LLM_PROVIDER_A_MODEL,
      embeddingModel: config.LLM_PROVIDER_A_EMBEDDING_MODEL,
    },
    {
      modelType: b,
      kind: config.LLM_PROVIDER_B_KIND,
      url: config.LLM_PROVIDER_B_URL,
      apiKey: config.LLM_PROVIDER_B_API_KEY,
      model: config.LLM_PROVIDER_B_MODEL,
      embeddingModel: config.LLM_PROVIDER_B_EMBEDDING_MODEL,
    },
    {
      modelType: c,
      kind: config.LLM_PROVIDER_C_KIND,
      url: config.LLM_PROVIDER_C_URL,
      apiKey: config.LLM_PROVIDER_C_API_KEY,
      model: config.LLM_PROVIDER_C_MODEL,
      embeddingModel: config.LLM_PROVIDER_C_EMBEDDING_MODEL,
    },
  ];
}

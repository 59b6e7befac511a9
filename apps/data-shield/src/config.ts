import { IsBoolean, IsInt, IsOptional, IsString, IsUrl, Max, Min } from 'class-validator';
import { BaseConfig, EnvBoolean, EnvInt, Secret } from '@docflow/service-kit';

const URL_OPTIONS = { require_tld: false, protocols: ['http', 'https'], require_protocol: true };

export class DataShieldConfig extends BaseConfig {
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  DATA_SHIELD_PORT = 8030;

  @Secret()
  SERVICE_KEY!: string;

  /** Signs calls to the public API (tenant detectors, audit) and keys the scope handles every replica can open. */
  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;

  /** The public API (spec 4.17 rule 9): tenant detectors come from it and audit rows go to it. Default: PUBLIC_API_INTERNAL_URL. */
  @IsOptional()
  @IsUrl(URL_OPTIONS)
  DMS_URL?: string;

  @IsUrl(URL_OPTIONS)
  PUBLIC_API_INTERNAL_URL = 'http://127.0.0.1:1337';

  /** No `data_shield.tokenise` rows are sent. */
  @EnvBoolean()
  @IsBoolean()
  DATA_SHIELD_AUDIT_DISABLED = false;

  /** How long a scope handle can be restored (it lives in the caller's request). */
  @EnvInt()
  @IsInt()
  @Min(10)
  @Max(86400)
  DATA_SHIELD_SCOPE_TTL_SECONDS = 1800;

  /** How long a tenant's detectors are used before they are fetched again. */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(3600)
  DATA_SHIELD_TENANT_CACHE_SECONDS = 30;

  /** Named in spec 4.17 rule 9 for a spaCy model; this build's tagger is offline and in process, so it is read and ignored. */
  @IsOptional()
  @IsString()
  DATA_SHIELD_SPACY_MODEL?: string;
}

import { IsInt, Max, Min } from 'class-validator';
import { BaseConfig, EnvInt, Secret } from '@docflow/service-kit';

export class DataShieldConfig extends BaseConfig {
  @EnvInt() @IsInt() @Min(1) @Max(65535)
  DATA_SHIELD_PORT = 8030;

  @Secret()
  SERVICE_KEY!: string;

  @Secret()
  INTERNAL_SERVICE_JWT_SECRET!: string;
}

import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
import { getMetadataStorage, IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min, MinLength, validateSync, ValidationError } from 'class-validator';

/** Thrown at boot when the environment does not satisfy a service's config class. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Parses `true/false/1/0/yes/no`; anything else stays as given so validation names it. */
export function EnvBoolean(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value === 'boolean') return value;
    if (typeof value !== 'string') return value;
    const v = value.trim().toLowerCase();
    if (['true', '1', 'yes', 'on'].includes(v)) return true;
    if (['false', '0', 'no', 'off', ''].includes(v)) return false;
    return value;
  });
}

/** Parses an integer from the environment; anything else stays as given so validation names it. */
export function EnvInt(): PropertyDecorator {
  return Transform(({ value }) => {
    if (typeof value === 'number') return value;
    if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
    return value;
  });
}

/** Parses a comma separated list. */
export function EnvList(): PropertyDecorator {
  return Transform(({ value }) => {
    if (Array.isArray(value)) return value;
    if (typeof value !== 'string') return value;
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  });
}

/** Settings every service has. Properties are named exactly as their variables. */
export class BaseConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsIn(['error', 'warn', 'info', 'debug'])
  LOG_LEVEL = 'info';

  @IsIn(['json', 'pretty'])
  LOG_FORMAT: 'json' | 'pretty' = 'json';

  @EnvInt()
  @IsInt()
  @Min(1000)
  @Max(600000)
  SHUTDOWN_TIMEOUT_MS = 25000;

  /**
   * Address an internal service listens on (router, processors, LLM service,
   * Data Shield): loopback unless an operator opens it, e.g. `0.0.0.0` in
   * containers (issue #13). The public API listens on HOST instead.
   */
  @IsString()
  @MinLength(1)
  BIND_HOST = '127.0.0.1';

  /** Runtime contract: when set, /metrics asks for `Authorization: Bearer <METRICS_TOKEN>`. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;

  /**
   * Traces (issue #18 item 5): the OTLP/HTTP collector's base URL; spans are
   * posted (JSON) to `<url>/v1/traces`. Unset: no exporter, no spans.
   */
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_tld: false, require_protocol: true }, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** `service.name` of this process's spans; defaults to the service's own name (`router`, `public-api`, ...). */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'OTEL_SERVICE_NAME must be 1 to 64 letters, digits, dots, dashes or underscores' })
  OTEL_SERVICE_NAME?: string;

  /** A service whose metrics are on a public port sets this: in production it then needs METRICS_TOKEN. */
  static readonly metricsOnPublicPort: boolean = false;
}

function flatten(errors: ValidationError[], prefix = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const name = prefix + e.property;
    if (e.constraints) {
      out.push(`${name}: ${Object.values(e.constraints).join('; ')}`);
    }
    if (e.children?.length) out.push(...flatten(e.children, `${name}.`));
  }
  return out;
}

/**
 * Secrets a service cannot start without, in every environment (issue #13: a
 * fixed development default let anyone reaching a port forge tokens). `npm
 * start` generates them into `.env`; tests pass their own.
 * Listed per config class by `secretsOf`.
 */
const SECRET_FIELDS = Symbol('secretFields');
export function Secret(): PropertyDecorator {
  return (target, key) => {
    const ctor = target.constructor as unknown as Record<symbol, string[]>;
    const own: string[] = Object.prototype.hasOwnProperty.call(ctor, SECRET_FIELDS) ? (ctor[SECRET_FIELDS] ?? []) : [...(ctor[SECRET_FIELDS] ?? [])];
    own.push(String(key));
    ctor[SECRET_FIELDS] = own;
  };
}

/** The secret variables a config class needs. */
export function secretsOf(cls: object): string[] {
  return (cls as Record<symbol, string[]>)[SECRET_FIELDS] ?? [];
}

/** Earlier builds filled missing secrets with values of this shape; one left in an environment is no secret. */
const DEV_DEFAULT_MARK = 'dev-only-';

function secretProblem(key: string, value: unknown, production: boolean): string | null {
  if (typeof value !== 'string' || value === '') {
    return `${key}: is not set; every service needs its secrets (\`npm start\` generates them into .env; set them in the environment otherwise)`;
  }
  if (value.startsWith(DEV_DEFAULT_MARK)) return `${key}: holds a fixed development default; set a generated secret`;
  if (production && value.length < 16) return `${key}: must be a strong secret (at least 16 characters) when NODE_ENV=production`;
  return null;
}

/**
 * Builds and validates a config object from the environment, once, at boot.
 * Nothing else in a service reads process.env.
 */
export function loadConfig<T extends BaseConfig>(cls: new () => T, env: NodeJS.ProcessEnv = process.env): T {
  const raw: Record<string, unknown> = {};
  const declared = new Set<string>([
    ...Object.keys(new cls() as object),
    ...getMetadataStorage()
      .getTargetValidationMetadatas(cls, '', true, false)
      .map((m) => m.propertyName),
    ...secretsOf(cls),
  ]);
  for (const key of declared) {
    const v = env[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const config = plainToInstance(cls, raw, { exposeDefaultValues: true });
  const problems = flatten(validateSync(config as object, { forbidUnknownValues: false }));
  const record = config as unknown as Record<string, unknown>;
  for (const key of secretsOf(cls)) {
    const problem = secretProblem(key, record[key], config.NODE_ENV === 'production');
    if (problem !== null) problems.push(problem);
  }
  if ((cls as unknown as typeof BaseConfig).metricsOnPublicPort && config.NODE_ENV === 'production' && config.METRICS_TOKEN === undefined) {
    problems.push('METRICS_TOKEN: must be set when NODE_ENV=production: this service serves /metrics on its public port');
  }
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** Loads config or exits the process naming each bad variable. */
export function loadConfigOrExit<T extends BaseConfig>(cls: new () => T, service: string): T {
  try {
    return loadConfig(cls);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${JSON.stringify({ level: 'error', service, message: 'invalid configuration', problems: err.problems })}\n`);
      process.exit(78);
    }
    throw err;
  }
}

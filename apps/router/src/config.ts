import { IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { BaseConfig, EnvInt, Secret } from '@docflow/service-kit';

export class RouterConfig extends BaseConfig {
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(65535)
  ROUTER_PORT = 8010;

  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/docflow';

  @IsString()
  @Matches(/^amqps?:\/\//, { message: 'AMQP_URL must be an amqp:// or amqps:// URL' })
  AMQP_URL = 'amqp://guest:guest@127.0.0.1:5672';

  /** Callers (the public API) send it as `X-API-Key`. */
  @Secret()
  ROUTER_API_KEY!: string;

  /** Unacknowledged results messages the router holds at most; a batch takes up to half of them (the other half arrives meanwhile). */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  RESULTS_PREFETCH = 64;

  /**
   * How long a results batch below half the prefetch waits for more, from its oldest message (0: none). Nobody waits on
   * the router's record of a result (the public API applies it from its own queue), so batches are made larger: fewer
   * statements, commits and acks per result (docs/decisions.md, "Router, workflow processor and RabbitMQ per execution").
   */
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1000)
  RESULTS_LINGER_MS = 25;

  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100)
  DB_POOL_SIZE = 10;

  /** Router processes on ROUTER_PORT (node:cluster); above 1 a primary forks them and replaces one that dies. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(32)
  ROUTER_REPLICAS = 1;

  /** Jobs untouched for this many days are deleted (hourly, in batches of 1000); the public API and the workflow processor prune theirs with the same variable. */
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(36_500)
  EXECUTION_RETENTION_DAYS = 30;

  /** How often the router reads the work queues' and dead-letter queues' depths for /metrics. */
  @EnvInt()
  @IsInt()
  @Min(500)
  @Max(600_000)
  QUEUE_METRICS_INTERVAL_MS = 15_000;
}

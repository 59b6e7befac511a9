import express from 'express';
import { requireServiceAuth } from '@docflow/internal-auth';
import { createHttpApp, HealthCheck, Logger, Metrics } from '@docflow/service-kit';
import { chatRoutes } from './chat/chat.routes';
import { Clock, CompletionService } from './completion/completion.service';
import { LlmMetrics } from './completion/llm-metrics';
import { DataShield } from './data-shield/data-shield.client';
import { previewRoutes } from './data-shield/preview.routes';
import { embeddingsRoutes } from './embeddings/embeddings.routes';
import { extractRoutes } from './extract/extract.routes';
import { FileResolver } from './files/file-inputs';
import { Pricing } from './pricing/pricing';
import { ProviderRegistry } from './providers/registry';

export interface LlmServiceDeps {
  logger: Logger;
  metrics: Metrics;
  /** METRICS_TOKEN: when set, /metrics asks for it as a bearer token. */
  metricsToken?: string;
  auth: { serviceKey: string; jwtSecret: string };
  providers: ProviderRegistry;
  dataShield: DataShield;
  /** DATA_SHIELD_DISABLED: shielding requests are served in clear unless a policy requires shielding (refused). */
  shieldingDisabled?: boolean;
  pricing: Pricing;
  /** Measures call durations; the system clock unless a test gives one. */
  clock?: Clock;
  /** main passes the Data Shield gateway's; providers are not probed on every health call. */
  health?: HealthCheck[];
  bodyLimit?: string;
  /** Fetches and reads file_urls; without it (tests that need none) requests with files are refused. */
  files?: FileResolver;
}

/** The LLM service: /api/v1/{extract, chat, embeddings, data-shield/preview} behind internal auth; /_health and /metrics open. */
export function createApp(deps: LlmServiceDeps): express.Express {
  const completions = new CompletionService({
    providers: deps.providers,
    dataShield: deps.dataShield,
    pricing: deps.pricing,
    metrics: new LlmMetrics(deps.metrics),
    clock: deps.clock ?? { now: () => Date.now() },
    logger: deps.logger,
    shieldingDisabled: deps.shieldingDisabled ?? false,
  });
  return createHttpApp(
    { logger: deps.logger, metrics: deps.metrics, health: deps.health ?? [], errorStyle: 'internal', bodyLimit: deps.bodyLimit ?? '10mb', metricsToken: deps.metricsToken },
    (app) => {
      app.use('/api/v1', requireServiceAuth(deps.auth));
      const files = deps.files ?? new FileResolver({ publicBaseUrl: 'http://127.0.0.1:1337', allowedHosts: [], maxBytes: 10 * 1024 * 1024, maxChars: 200_000 });
      app.use('/api/v1', extractRoutes(completions, files));
      app.use('/api/v1', chatRoutes(completions, files));
      app.use('/api/v1', embeddingsRoutes(completions));
      app.use('/api/v1', previewRoutes(deps.shieldingDisabled ? undefined : deps.dataShield));
    },
  );
}

import type { IncomingHttpHeaders } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import { BadRequestError, ForbiddenError, type LaneRoute, NotFoundError, PayloadTooLargeError, UnauthorizedError, unstorableMessage, unstorablePath } from '@docflow/service-kit';
import { isPlainObject } from '@docflow/workflow';
import { ActivitiesRepository } from '../activities/activities.repository';
import { idParam, PER_MINUTE } from '../../platform';
import { currentUser } from '../../identity';
import { createUploadMiddleware, removeSpooled, spooledFiles } from '../../documents';
import type { ApiFeature, PlatformServices } from '../../platform';
import type { RagModule } from '../../rag';
import type { DocumentsModule } from '../../documents';
import { originAllowed } from '../../platform';
import type { WebhookEntity } from './webhook.entity';
import { webhookSecretMatches } from './webhook-secret';
import { type AcceptLimits, type CachedWebhook, WebhookAcceptor } from './webhook-accept';
import { WebhookAcceptRepository } from './webhook-accept.repository';
import { parseCreateWebhook, parseUpdateWebhook } from './webhooks.dto';
import { describeWebhookRoutes } from './webhooks.openapi';
import { WebhooksRepository } from './webhooks.repository';
import { WEBHOOK_NOT_FOUND, WebhooksService } from './webhooks.service';
import type { AuthGuards, AuditLog, UsersService } from '../../identity';
import type { ExecutionServices } from '../executions/workflow-executions.feature';

/** Spec 8: at most 100 triggers a minute per webhook, across replicas (WEBHOOK_TRIGGERS_PER_MINUTE; benchmarks raise it). */
export const TRIGGER_LIMIT_PER_MINUTE = 100;
/** Wrong-secret calls are audited as one row per webhook and 5 minutes, with their count. */
export const SIGNATURE_MISMATCH_AUDIT_WINDOW_SECONDS = 300;
/** Spec 8: a webhook's max_file_size_mb is at most 50; the spooler stops there, the webhook's own limit is checked after. */
const SPOOL_LIMIT_BYTES = 50 * 1024 * 1024;
export const WEBHOOK_SECRET_HEADER = 'x-webhook-secret';

function webhookId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(WEBHOOK_NOT_FOUND);
  return id;
}

function authenticated(res: Response): WebhookEntity {
  const webhook = res.locals['webhook'] as WebhookEntity | undefined;
  if (!webhook) throw new Error('webhook trigger without its authentication step');
  return webhook;
}

/** The trigger body's inputs: a JSON object (or nothing), or the plain fields of a multipart form. */
function inputsOf(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (req.is('multipart/form-data')) {
    // Form fields are parsed here, after the app's check of JSON bodies: text the database cannot store is refused the same way.
    const fields = { ...(body as Record<string, unknown>) };
    const unstorable = unstorablePath(fields);
    if (unstorable !== undefined) throw BadRequestError.withErrors('Invalid inputs', [unstorableMessage(unstorable)]);
    return fields;
  }
  return jsonInputs(body);
}

/** A JSON trigger body's inputs: an object, or nothing ({}); anything else is a 400. */
function jsonInputs(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (!isPlainObject(body)) throw BadRequestError.withErrors('The trigger body must be a JSON object', ['body must be a JSON object whose fields become the workflow inputs']);
  return body;
}

/** A request header (lower-case name) as express's req.header reads it: Referer and Referrer are one header there. */
function headerOf(headers: IncomingHttpHeaders, name: 'origin' | 'referer' | typeof WEBHOOK_SECRET_HEADER): string | undefined {
  return (name === 'referer' ? headers['referrer'] || headers['referer'] : headers[name]) as string | undefined;
}

/** Whether the fast path may accept a trigger of this cached webhook: the secret matches, it is active and the origin is allowed. */
function fastPathAdmits(cached: CachedWebhook, headers: IncomingHttpHeaders): boolean {
  const secret = headerOf(headers, WEBHOOK_SECRET_HEADER);
  const w = cached.webhook;
  return secret !== undefined && secret !== '' && webhookSecretMatches(secret, w) && w.active && originAllowed(w.allowedOrigins, headerOf(headers, 'origin'), headerOf(headers, 'referer'));
}

type WebhookNeeds = Pick<PlatformServices, 'config' | 'database' | 'logger' | 'openapi' | 'limits'> & { auth: AuthGuards; users: UsersService; audit: AuditLog; executions: ExecutionServices };

/**
 * The webhooks features, and the sweep of accepted triggers whose start is
 * still pending (the workers role runs it every WEBHOOK_START_SWEEP_INTERVAL_MS;
 * nothing to sweep before the features are mounted). `trigger` holds the one
 * route every webhook call takes (POST /webhooks/trigger/{id}) and is mounted
 * ahead of every other feature: express walks the routes mounted before a
 * request's own on every request, about 130 of them before this feature's
 * place in the list (docs/decisions.md, "Throughput: the webhook tail").
 * `feature` holds the owner's management routes and the OpenAPI description.
 * No other route matches the trigger's path, so the order changes no answer.
 */
export function createWebhooksFeature(deps: { documents: DocumentsModule; rag: RagModule }): {
  trigger: ApiFeature<WebhookNeeds>;
  feature: ApiFeature<WebhookNeeds>;
  sweepPendingStarts(): Promise<number>;
  /** The request lane's route of the trigger (app.ts); empty until the trigger feature is mounted. */
  laneRoutes(): LaneRoute<CachedWebhook>[];
} {
  let built: { ctx: WebhookNeeds; repo: WebhooksRepository; webhooks: WebhooksService; acceptor: WebhookAcceptor } | undefined;
  /** The trigger's copy in the request lane, made when the trigger feature is mounted. */
  let laneRoute: LaneRoute<CachedWebhook> | undefined;
  /** The repository, use case and acceptor both features share, made by whichever is mounted first. */
  const setup = (ctx: WebhookNeeds) => {
    if (built) {
      if (built.ctx !== ctx) throw new Error('the webhooks features must be mounted with the same services');
      return built;
    }
    const repo = new WebhooksRepository(ctx.database);
    const { executions } = ctx.executions;
    const webhooks = new WebhooksService({
      repo,
      activities: new ActivitiesRepository(ctx.database),
      users: ctx.users,
      executions,
      uploads: deps.documents.uploads,
      documents: deps.documents.documents,
      textExtraction: deps.documents.textExtraction,
      enableRag: (documentId, ownerId) => deps.rag.service.enable(documentId, ownerId, false),
      audit: ctx.audit,
      logger: ctx.logger.child({ component: 'webhooks' }),
      publicBaseUrl: ctx.config.PUBLIC_BASE_URL,
      jwtSecret: ctx.config.JWT_SECRET,
    });
    const acceptor = new WebhookAcceptor({
      store: new WebhookAcceptRepository(ctx.database),
      repo,
      activities: new ActivitiesRepository(ctx.database),
      executions,
      executionsRepo: ctx.executions.repo,
      audit: ctx.audit,
      logger: ctx.logger.child({ component: 'webhooks' }),
      jwtSecret: ctx.config.JWT_SECRET,
    });
    built = { ctx, repo, webhooks, acceptor };
    return built;
  };

  const trigger: ApiFeature<WebhookNeeds> = {
    name: 'webhook trigger',
    register(api, ctx) {
      const { repo, webhooks, acceptor } = setup(ctx);
      // Spec 8: a trigger's payload is at most 1 MB; in a form, that is its plain fields (32 of 32 KiB), files having their own limit.
      const spool = createUploadMiddleware({ tempDir: deps.documents.uploadTempDir, maxFileBytes: SPOOL_LIMIT_BYTES, anyFieldName: true, fieldLimits: { fields: 32, fieldSize: 32 * 1024 } });

      /** Rule 1 in this order: no secret 401, unknown 404, wrong secret 401, inactive 403; then origins (rule 3) and the rate limit. */
      const authenticateTrigger = async (rawId: unknown, headers: IncomingHttpHeaders): Promise<WebhookEntity> => {
        const secret = headerOf(headers, WEBHOOK_SECRET_HEADER);
        if (secret === undefined || secret === '') throw new UnauthorizedError('Missing X-Webhook-Secret header');
        const webhook = await repo.findById(webhookId(rawId));
        if (!webhook) throw new NotFoundError(WEBHOOK_NOT_FOUND);
        if (!webhookSecretMatches(secret, webhook)) {
          // Anyone can send wrong secrets: one row per webhook and window, with the count, not one per request.
          ctx.audit.recordRepeated({
            action: 'webhook.signature_mismatch',
            subject: `webhook:${webhook.id}`,
            actorUserId: webhook.ownerId,
            details: { webhook_id: webhook.id },
            windowSeconds: SIGNATURE_MISMATCH_AUDIT_WINDOW_SECONDS,
          });
          throw new UnauthorizedError('Invalid webhook secret');
        }
        if (!webhook.active) throw new ForbiddenError('This webhook is inactive');
        if (!originAllowed(webhook.allowedOrigins, headerOf(headers, 'origin'), headerOf(headers, 'referer'))) {
          ctx.audit.record({ action: 'webhook.origin_blocked', actorUserId: webhook.ownerId, details: { webhook_id: webhook.id } });
          throw new ForbiddenError('This origin may not trigger the webhook');
        }
        const perMinute = ctx.config.WEBHOOK_TRIGGERS_PER_MINUTE;
        await ctx.limits.enforce(`webhook:${webhook.id}`, PER_MINUTE(perMinute), `At most ${perMinute} triggers per minute for one webhook`);
        return webhook;
      };
      const authenticate: RequestHandler = async (req, res, next) => {
        res.locals['webhook'] = await authenticateTrigger(req.params['id'], req.headers);
        next();
      };

      /**
       * The fast path of a trigger without files (docs/decisions.md, "Webhook triggers accepted before
       * their start"): a cached webhook whose secret, state and origin pass is accepted by the grouped
       * commit and answered; anything else (no secret, unknown id, a wrong secret, inactive, an origin
       * refused, a webhook changed meanwhile, inputs the schema refuses) goes on to the full path,
       * which reads the webhook afresh and answers as before.
       */
      const limits: AcceptLimits = {
        perMinute: ctx.config.WEBHOOK_TRIGGERS_PER_MINUTE,
        maxRunning: ctx.config.WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER,
        executionsMonthly: ctx.config.EXECUTION_QUOTA_MONTHLY || null,
      };
      const fastTrigger: RequestHandler = async (req, res, next) => {
        if (req.is('multipart/form-data')) return next();
        const id = idParam(req.params['id']);
        const secret = req.header(WEBHOOK_SECRET_HEADER);
        if (secret === undefined || secret === '' || id === undefined) return next();
        const cached = await acceptor.lookup(id);
        if (!cached || !fastPathAdmits(cached, req.headers)) return next();
        const accepted = await acceptor.accept(cached, inputsOf(req), limits);
        if (accepted.outcome === 'stale') return next();
        res.json(accepted.response);
      };

      /**
       * The trigger in the request lane (app.ts), ahead of express: only what fastTrigger would accept from
       * what this process has cached already (a JSON body or none, no query string, the webhook loaded, its
       * secret, state and origin passing); everything else, a first trigger of a webhook included, goes to
       * express untouched. A trigger the batch does not take (a webhook changed meanwhile, inputs the schema
       * refuses) takes the full path here, as express's route would after fastTrigger: the body is read by then.
       */
      laneRoute = {
        method: 'POST',
        path: /^\/api\/webhooks\/trigger\/([^/]+)$/,
        label: '/api/webhooks/trigger/:id',
        admit: (req, query, params) => {
          const id = query === undefined ? idParam(params[0]) : undefined;
          const cached = id === undefined ? undefined : acceptor.cachedNow(id);
          return cached && fastPathAdmits(cached, req.headers) ? cached : undefined;
        },
        handle: async ({ req, params, body, admitted }) => {
          const inputs = jsonInputs(body);
          const accepted = await acceptor.accept(admitted, inputs, limits);
          if (accepted.outcome === 'accepted') return { status: 200, body: accepted.response };
          return { status: 200, body: await webhooks.trigger(await authenticateTrigger(params[0], req.headers), inputs, [], { form: false }) };
        },
      };

      /** Multipart bodies are spooled; a file over the spooler's 50 MB is a file validation failure, 400 (rule 1). */
      const spoolFiles: RequestHandler = (req, res, next) => {
        if (!req.is('multipart/form-data')) return next();
        spool(req, res, (err?: unknown) => {
          if (err instanceof PayloadTooLargeError) return next(BadRequestError.withErrors(err.message, (err.details as { errors?: string[] }).errors ?? [err.message]));
          return next(err);
        });
      };

      api.post('/webhooks/trigger/:id', fastTrigger, authenticate, spoolFiles, async (req, res) => {
        const files = spooledFiles(req);
        try {
          res.json(await webhooks.trigger(authenticated(res), inputsOf(req), files, { form: typeof req.is('multipart/form-data') === 'string' }));
        } finally {
          await removeSpooled(files);
        }
      });
    },
  };

  const feature: ApiFeature<WebhookNeeds> = {
    name: 'webhooks',
    register(api, ctx) {
      const { webhooks, acceptor } = setup(ctx);
      const { requireAuth } = ctx.auth;

      api.post('/webhooks', requireAuth, async (req, res) => {
        const input = parseCreateWebhook(req.body);
        res.status(201).json({ success: true, data: await webhooks.create(currentUser(req), input) });
      });

      api.get('/webhooks', requireAuth, async (req, res) => {
        res.json({ success: true, data: await webhooks.list(currentUser(req).id) });
      });

      api.get('/webhooks/:id', requireAuth, async (req, res) => {
        res.json({ success: true, data: await webhooks.get(currentUser(req).id, webhookId(req.params['id'])) });
      });

      api.put('/webhooks/:id', requireAuth, async (req, res) => {
        const id = webhookId(req.params['id']);
        const settings = parseUpdateWebhook(req.body);
        const data = await webhooks.update(currentUser(req).id, id, settings);
        acceptor.invalidate(id);
        res.json({ success: true, data });
      });

      api.delete('/webhooks/:id', requireAuth, async (req, res) => {
        const id = webhookId(req.params['id']);
        const data = await webhooks.delete(currentUser(req).id, id);
        acceptor.invalidate(id);
        res.json({ success: true, data });
      });

      api.post('/webhooks/:id/regenerate-secret', requireAuth, async (req, res) => {
        const id = webhookId(req.params['id']);
        const data = await webhooks.regenerateSecret(currentUser(req).id, id);
        acceptor.invalidate(id);
        res.json({ success: true, data });
      });

      describeWebhookRoutes(ctx.openapi);
    },
  };
  return { trigger, feature, sweepPendingStarts: async () => (built ? built.acceptor.sweep() : 0), laneRoutes: () => (laneRoute ? [laneRoute] : []) };
}

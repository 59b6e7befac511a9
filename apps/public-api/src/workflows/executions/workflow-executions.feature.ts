import type { Request, RequestHandler, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeCredentialRequest, type NodeCredentialResponse, ResultMessage } from '@docflow/contracts';
import { requireServiceAuth } from '@docflow/internal-auth';
import { BadRequestError, errorMessage, type LaneAnswer, type LaneRoute, Logger, Metrics, NotFoundError, UnauthorizedError, validatePlain } from '@docflow/service-kit';
import { ActivitiesRepository } from '../activities/activities.repository';
import type { AuditLog } from '../../identity';
import { createCredentialsService } from '../../identity';
import { idParam, PER_MINUTE, requestFields } from '../../platform';
import { currentUser, type AuthUser } from '../../identity';
import type { PublicApiConfig } from '../../platform';
import type { PublicApiDatabase } from '../../platform';
import type { ApiFeature, PlatformServices } from '../../platform';
import { RouterClient } from '../../platform';
import { CorrelationTokenSealer } from './correlation-token';
import { ExecutionResultsService } from './execution-results.service';
import { streamExecutionEvents } from './execution-events';
import { ExecutionWatch } from './execution-watch';
import { looksLikePollingToken, verifyPollingToken, type PollingGrant } from './polling-token';
import { parseCreateExecution, parseResume } from './workflow-executions.dto';
import { describeExecutionRoutes } from './workflow-executions.openapi';
import { EXECUTION_NOT_FOUND, type ExecutionQuotas, ExecutionReader, WorkflowExecutionsService } from './workflow-executions.service';
import { WorkflowExecutionsRepository } from './workflow-executions.repository';
import type { AuthGuards } from '../../identity';

export interface ExecutionServicesDeps {
  config: Pick<
    PublicApiConfig,
    | 'JWT_SECRET'
    | 'ROUTER_URL'
    | 'ROUTER_API_KEY'
    | 'MAX_RUNNING_EXECUTIONS_PER_USER'
    | 'WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER'
    | 'CREDENTIALS_MASTER_KEY'
    | 'CREDENTIALS_MASTER_KEY_PREVIOUS'
    | 'INTERNAL_SERVICE_JWT_SECRET'
  >;
  database: PublicApiDatabase;
  logger: Logger;
  metrics: Metrics;
  audit: AuditLog;
  /** Monthly execution and LLM cost quotas, checked at each start; without them, none. */
  quotas?: ExecutionQuotas;
}

export interface ExecutionServices {
  executions: WorkflowExecutionsService;
  results: ExecutionResultsService;
  repo: WorkflowExecutionsRepository;
  /** Fed by the process's LISTEN on EXECUTION_CHANGED_CHANNEL (server.ts); without one, long polls re-read every second. */
  watch: ExecutionWatch;
}

/** The execution use cases over one database; main builds the results consumer and the reaper from the same pieces. */
export function createExecutionServices(deps: ExecutionServicesDeps): ExecutionServices {
  const logger = deps.logger.child({ component: 'workflow-executions' });
  const watch = new ExecutionWatch();
  const repo = new WorkflowExecutionsRepository(
    deps.database,
    (err, payloads) => logger.warn('execution changes committed but not announced; waiters in other processes answer when their wait runs out', { error: errorMessage(err), payloads }),
    (payloads) => watch.onCommittedHere(payloads),
  );
  const sealer = new CorrelationTokenSealer(deps.config.JWT_SECRET);
  const router = new RouterClient({ baseUrl: deps.config.ROUTER_URL, apiKey: deps.config.ROUTER_API_KEY, logger });
  return {
    repo,
    watch,
    results: new ExecutionResultsService({ repo, sealer, logger, metrics: deps.metrics, audit: deps.audit }),
    executions: new WorkflowExecutionsService({
      repo,
      activities: new ActivitiesRepository(deps.database),
      router,
      sealer,
      logger,
      audit: deps.audit,
      credentials: createCredentialsService(deps),
      maxRunningPerUser: deps.config.MAX_RUNNING_EXECUTIONS_PER_USER,
      maxRunningPerUserForWebhooks: deps.config.WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER,
      watch,
      ...(deps.quotas ? { quotas: deps.quotas } : {}),
      jobUserSecret: deps.config.INTERNAL_SERVICE_JWT_SECRET,
    }),
  };
}

/** Spec 8: polling GET /workflow-executions/{id} at most 60 times a minute (per caller and execution). */
export const POLLING_LIMIT_PER_MINUTE = 60;

function executionId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(EXECUTION_NOT_FOUND);
  return id;
}

/** Longest long poll (issue #16 item 4). */
export const MAX_STATUS_WAIT_SECONDS = 30;

/** `?wait=<seconds>`: absent or 0 answers at once; a number of seconds up to 30 (fractions allowed); anything else is a 400. */
export function waitSecondsOf(value: unknown): number {
  if (value === undefined || value === '') return 0;
  const n = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!(n >= 0 && n <= MAX_STATUS_WAIT_SECONDS)) {
    throw BadRequestError.withErrors('Invalid wait', [`wait must be a number of seconds from 0 to ${MAX_STATUS_WAIT_SECONDS}`]);
  }
  return n;
}

function bearerOf(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

const pollingGrants = new WeakMap<Request, PollingGrant>();

/** An access token (requireAuth), or a webhook's polling token for reads of its one execution. */
function bearerOrPollingToken(ctx: Pick<PlatformServices, 'config'> & { auth: AuthGuards }): RequestHandler {
  return (req, res, next) => {
    const token = bearerOf(req);
    if (token !== undefined && looksLikePollingToken(token)) {
      const grant = verifyPollingToken(token, ctx.config.JWT_SECRET);
      if (!grant) return next(new UnauthorizedError('Invalid or expired polling token'));
      pollingGrants.set(req, grant);
      return next();
    }
    return ctx.auth.requireAuth(req, res, next);
  };
}

function readerOf(req: Request): ExecutionReader {
  const polling = pollingGrants.get(req);
  return polling ? { polling } : { user: currentUser(req) };
}

/** What the client left waiting gets as its abort reason (a reason of our own: a default one builds a DOMException each time). */
const CLIENT_LEFT = new Error('client left');

/**
 * Create, execute and status (with its long poll): the three requests of
 * every execution a client runs, served by the express routes below and by
 * the request lane (executionLaneRoutes) with the same code. Each takes the
 * authenticated reader and the raw path, query and body values, and answers
 * status and body (undefined when the client left a long poll).
 */
function hotRoutes(executions: WorkflowExecutionsService) {
  return {
    async create(user: AuthUser, body: unknown): Promise<LaneAnswer> {
      return { status: 201, body: { data: await executions.create(user, parseCreateExecution(body)) } };
    },
    async execute(user: AuthUser, id: unknown, body: unknown): Promise<LaneAnswer> {
      return { status: 200, body: await executions.execute(user, executionId(id), requestFields(body)) };
    },
    async status(reader: ExecutionReader, rawId: unknown, wait: unknown, res: ServerResponse): Promise<LaneAnswer> {
      const id = executionId(rawId);
      const waitMs = waitSecondsOf(wait) * 1000;
      if (waitMs === 0) return { status: 200, body: { data: await executions.status(reader, id) } };
      const left = new AbortController();
      const onClose = () => left.abort(CLIENT_LEFT);
      res.on('close', onClose);
      try {
        const data = await executions.awaitStatus(reader, id, { ms: waitMs, signal: left.signal });
        return left.signal.aborted ? undefined : { status: 200, body: { data } };
      } finally {
        res.off('close', onClose);
      }
    },
  };
}

function answer(res: Response, a: LaneAnswer): void {
  if (a) res.status(a.status).json(a.body);
}

/** `?wait=<seconds>` as the status route's lane takes it; any other query string goes to express (and its checks). */
const LANE_STATUS_QUERY = /^(?:wait=(\d+(?:\.\d+)?))?$/;

/**
 * The lane's copies of the hot routes (app.ts builds the lane): only for a
 * caller whose access token verified before (a new token, a polling token,
 * or no token goes through express, which answers its 401), and only with
 * no query string (status: none or `wait=<number>`). Authentication is
 * settled where requireAuth runs in express, after the body is read.
 */
export function executionLaneRoutes(executions: ExecutionServices, auth: Pick<AuthGuards, 'knownToken'>): LaneRoute<{ settle(): Promise<AuthUser> }>[] {
  const hot = hotRoutes(executions.executions);
  const admitPlain = (req: IncomingMessage, query: string | undefined) => (query === undefined ? auth.knownToken(req) : undefined);
  return [
    {
      method: 'POST',
      path: /^\/api\/workflow-executions$/,
      label: '/api/workflow-executions',
      admit: admitPlain,
      handle: async ({ body, admitted }) => hot.create(await admitted.settle(), body),
    },
    {
      method: 'POST',
      path: /^\/api\/workflow-executions\/(\d+)\/execute$/,
      label: '/api/workflow-executions/:id/execute',
      admit: admitPlain,
      handle: async ({ params, body, admitted }) => hot.execute(await admitted.settle(), params[0], body),
    },
    {
      method: 'GET',
      path: /^\/api\/workflow-executions\/(\d+)\/status$/,
      label: '/api/workflow-executions/:id/status',
      admit: (req, query) => {
        const token = bearerOf(req);
        if ((query !== undefined && !LANE_STATUS_QUERY.test(query)) || (token !== undefined && looksLikePollingToken(token))) return undefined;
        return auth.knownToken(req);
      },
      handle: async ({ res, params, query, admitted }) => {
        const user = await admitted.settle();
        return hot.status({ user }, params[0], LANE_STATUS_QUERY.exec(query ?? '')?.[1], res);
      },
    },
  ];
}

/** /workflow-executions (spec 4.8). */
export const workflowExecutionsFeature: ApiFeature<Pick<PlatformServices, 'config' | 'openapi' | 'limits'> & { auth: AuthGuards; executions: ExecutionServices }> = {
  name: 'workflow-executions',
  register(api, ctx) {
    const { executions, results } = ctx.executions;
    const auth = ctx.auth.requireAuth;
    const readAuth = bearerOrPollingToken(ctx);
    const serviceAuth = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });

    const hot = hotRoutes(executions);
    api.post('/workflow-executions', auth, async (req, res) => {
      answer(res, await hot.create(currentUser(req), req.body));
    });

    api.get('/workflow-executions/:id', readAuth, async (req, res) => {
      const id = executionId(req.params['id']);
      const reader = readerOf(req);
      const caller = 'user' in reader ? `user:${reader.user.id}` : `poll:${reader.polling.executionId}`;
      await ctx.limits.enforce(`poll:${caller}:${id}`, PER_MINUTE(POLLING_LIMIT_PER_MINUTE), `Polling limit: at most ${POLLING_LIMIT_PER_MINUTE} requests per minute for one execution`);
      res.json({ data: await executions.get(reader, id) });
    });

    api.get('/workflow-executions/:id/status', readAuth, async (req, res) => {
      answer(res, await hot.status(readerOf(req), req.params['id'], req.query['wait'], res));
    });

    api.get('/workflow-executions/:id/events', readAuth, async (req, res) => {
      await streamExecutionEvents(res, { executions, watch: ctx.executions.watch, reader: readerOf(req), id: executionId(req.params['id']) });
    });

    api.post('/workflow-executions/:id/execute', auth, async (req, res) => {
      answer(res, await hot.execute(currentUser(req), req.params['id'], req.body));
    });

    api.post('/workflow-executions/:id/resume', auth, async (req, res) => {
      res.json({ data: await executions.resume(currentUser(req), executionId(req.params['id']), parseResume(req.body)) });
    });

    api.post('/workflow-executions/:id/cancel', auth, async (req, res) => {
      res.json({ data: await executions.cancel(currentUser(req), executionId(req.params['id'])) });
    });

    api.post('/workflow-executions/:id/retry', auth, async (req, res) => {
      res.status(201).json(await executions.retry(currentUser(req), executionId(req.params['id'])));
    });

    api.get('/workflow-executions/:id/timeline', auth, async (req, res) => {
      res.json({ data: await executions.timeline(currentUser(req), executionId(req.params['id'])) });
    });

    api.put('/workflow-executions/internal/:id/results', serviceAuth, async (req, res) => {
      const id = executionId(req.params['id']);
      const parsed = validatePlain(ResultMessage, req.body);
      if (!parsed.ok) throw BadRequestError.withErrors('Invalid results message', parsed.errors);
      const msg = parsed.value;
      if (msg.execution_id !== undefined && msg.execution_id !== id) {
        throw BadRequestError.withErrors('execution_id does not match the path', [`execution_id must be ${id}`]);
      }
      msg.execution_id = id;
      const outcome = await results.apply(msg);
      if (outcome.outcome === 'unknown_execution' || outcome.outcome === 'not_a_workflow_job') throw new NotFoundError(EXECUTION_NOT_FOUND);
      res.json({ data: { id, applied: outcome.outcome === 'applied', status: outcome.status } });
    });

    api.post('/workflow-executions/internal/:id/node-credential', serviceAuth, async (req, res) => {
      const id = executionId(req.params['id']);
      const parsed = validatePlain(NodeCredentialRequest, req.body);
      if (!parsed.ok) throw BadRequestError.withErrors('Invalid node credential request', parsed.errors);
      const body: NodeCredentialResponse = { data: await executions.nodeCredential(id, parsed.value.job_id, parsed.value.node_id) };
      res.setHeader('Cache-Control', 'no-store');
      res.json(body);
    });

    describeExecutionRoutes(ctx.openapi);
  },
};

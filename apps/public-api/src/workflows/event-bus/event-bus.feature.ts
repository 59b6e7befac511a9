import type { Request, RequestHandler } from 'express';
import { parsePushHeaders } from '@docflow/cloud-drive';
import { DocumentImportQuery, DriveAccessTokenRequest } from '@docflow/contracts';
import { requireServiceAuth } from '@docflow/internal-auth';
import { BadRequestError, bodyEncodingOf, inflatedBody, isReadableBodyEncoding, NotFoundError, unsupportedEncodingError, validatePlain } from '@docflow/service-kit';
import { idParam, requestFields } from '../../platform';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import type { AuthGuards } from '../../identity';
import { parseCreateSource, parseCreateSubscription, parseLogQuery, parseUpdateSubscription } from './event-bus.dto';
import { describeEventBusRoutes } from './event-bus.openapi';
import { SOURCE_NOT_FOUND, SUBSCRIPTION_NOT_FOUND, type EventBusService } from './event-bus.service';
import type { DocumentImportService } from './document-import';
import type { DriveWatching } from './drive-watching';
import type { DriveTokenLender } from './drive-token-lender';

/** The import route's path: its body is the file, never parsed as JSON (createHttpApp rawBodyPaths). */
export const DOCUMENT_IMPORT_ROUTE = '/internal/documents/import';

function pathId(value: unknown, message: string): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(message);
  return id;
}

function queryText(req: Request, key: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `pagination[page]` and `pagination[pageSize]` (spec 2.1), as limit and offset. */
function pageOf(req: Request): { page: number; pageSize: number } {
  const q = req.query as Record<string, unknown>;
  const int = (raw: unknown, fallback: number, max: number, name: string): number => {
    if (raw === undefined) return fallback;
    if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw) || Number(raw) > max) throw BadRequestError.withErrors('Invalid query', [`${name} must be an integer from 1 to ${max}`]);
    return Number(raw);
  };
  return { page: int(q['pagination[page]'], 1, 100_000, 'pagination[page]'), pageSize: int(q['pagination[pageSize]'], 25, 100, 'pagination[pageSize]') };
}

export interface EventBusFeatureDeps {
  service: EventBusService;
  watching: DriveWatching;
  importer: DocumentImportService;
  lender: DriveTokenLender;
  publicBaseUrl: string;
}

/** Routes of spec 4.10 (event bus, sources, subscriptions, logs, the drive grant), the push receiver, and the internal routes of cloud_drive_fetch_task. */
/** What the routes use of the platform and identity. */
export type EventBusRouteNeeds = Pick<PlatformServices, 'config' | 'logger' | 'openapi'> & { auth: AuthGuards };

export function createEventBusFeature(deps: EventBusFeatureDeps): ApiFeature<EventBusRouteNeeds> {
  const { service, watching } = deps;
  return {
    name: 'event-bus',
    register(api, ctx) {
      const { requireAuth } = ctx.auth;
      const requireService = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });
      const logger = ctx.logger.child({ component: 'event-bus' });

      // --- the drive grant (spec 5: delegated OAuth 2.0 grant per user) ---
      api.get('/cloud/oauth/status', requireAuth, async (req, res) => {
        res.json(await service.oauthStatus(currentUser(req).id));
      });
      api.get('/cloud/oauth/connect', requireAuth, async (req, res) => {
        const redirectUri = queryText(req, 'redirect_uri') ?? `${deps.publicBaseUrl.replace(/\/+$/, '')}/api/cloud/oauth/callback`;
        const start = await service.connect(currentUser(req).id, redirectUri);
        res.json(start.kind === 'connected' ? { connected: true } : { connected: false, authorization_url: start.authorizationUrl });
      });
      api.get('/cloud/oauth/callback', requireAuth, async (req, res) => {
        const code = queryText(req, 'code');
        const state = queryText(req, 'state');
        const denied = queryText(req, 'error');
        if (denied) throw BadRequestError.withErrors('The drive did not grant access', [`error: ${denied.slice(0, 100)}`]);
        if (!code || !state) throw BadRequestError.withErrors('Invalid callback', ['code and state are required']);
        await service.completeConnect(currentUser(req).id, code, state);
        res.json({ connected: true });
      });
      api.post('/cloud/oauth/disconnect', requireAuth, async (req, res) => {
        await service.disconnect(currentUser(req).id);
        res.json({ connected: false });
      });

      // --- sources ---
      api.post('/event-bus/sources', requireAuth, async (req, res) => {
        const input = parseCreateSource(requestFields(req.body));
        res.status(201).json({ success: true, data: await service.createSource(currentUser(req), input) });
      });
      api.get('/event-bus/sources', requireAuth, async (req, res) => {
        res.json({ success: true, data: await service.listSources(currentUser(req).id) });
      });
      api.delete('/event-bus/sources/:id', requireAuth, async (req, res) => {
        res.json({ success: true, data: await service.deleteSource(currentUser(req).id, pathId(req.params['id'], SOURCE_NOT_FOUND)) });
      });
      for (const base of ['/event-bus/sources', '/event-sources']) {
        api.post(`${base}/:id/activate`, requireAuth, async (req, res) => {
          res.json({ data: await service.activate(currentUser(req).id, pathId(req.params['id'], SOURCE_NOT_FOUND)) });
        });
      }
      api.post('/event-sources', requireAuth, async (req, res) => {
        const input = parseCreateSource(requestFields(req.body));
        res.status(201).json({ data: await service.createSource(currentUser(req), input) });
      });
      api.get('/event-sources', requireAuth, async (req, res) => {
        res.json({ data: await service.listSources(currentUser(req).id) });
      });
      api.get('/event-sources/:id', requireAuth, async (req, res) => {
        res.json({ data: await service.getSource(currentUser(req).id, pathId(req.params['id'], SOURCE_NOT_FOUND)) });
      });
      api.delete('/event-sources/:id', requireAuth, async (req, res) => {
        res.json({ data: await service.deleteSource(currentUser(req).id, pathId(req.params['id'], SOURCE_NOT_FOUND)) });
      });

      // --- subscriptions ---
      api.post('/event-subscriptions', requireAuth, async (req, res) => {
        const input = parseCreateSubscription(requestFields(req.body));
        res.status(201).json({ data: await service.createSubscription(currentUser(req), input) });
      });
      api.get('/event-subscriptions', requireAuth, async (req, res) => {
        const source = queryText(req, 'event_source');
        const sourceId = source === undefined ? undefined : idParam(source);
        if (source !== undefined && sourceId === undefined) throw BadRequestError.withErrors('Invalid query', ['event_source must be a positive integer']);
        res.json({ data: await service.listSubscriptions(currentUser(req).id, sourceId) });
      });
      api.get('/event-subscriptions/:id', requireAuth, async (req, res) => {
        res.json({ data: await service.getSubscription(currentUser(req).id, pathId(req.params['id'], SUBSCRIPTION_NOT_FOUND)) });
      });
      api.put('/event-subscriptions/:id', requireAuth, async (req, res) => {
        const id = pathId(req.params['id'], SUBSCRIPTION_NOT_FOUND);
        const settings = parseUpdateSubscription(requestFields(req.body));
        res.json({ data: await service.updateSubscription(currentUser(req).id, id, settings) });
      });
      api.delete('/event-subscriptions/:id', requireAuth, async (req, res) => {
        res.json({ data: await service.deleteSubscription(currentUser(req).id, pathId(req.params['id'], SUBSCRIPTION_NOT_FOUND)) });
      });

      // --- the event log and stats ---
      api.get('/event-bus/logs', requireAuth, async (req, res) => {
        const q = parseLogQuery(req.query as Record<string, unknown>);
        const { data, total } = await service.logs(currentUser(req).id, q);
        res.json({ success: true, data, pagination: { total, limit: q.limit, offset: q.offset } });
      });
      api.get('/event-logs', requireAuth, async (req, res) => {
        const { page, pageSize } = pageOf(req);
        const { data, total } = await service.logs(currentUser(req).id, { limit: pageSize, offset: (page - 1) * pageSize });
        res.json({ data, meta: { pagination: { page, pageSize, pageCount: Math.ceil(total / pageSize), total } } });
      });
      api.get('/event-bus/stats', requireAuth, async (req, res) => {
        res.json({ success: true, data: await service.stats(currentUser(req).id) });
      });

      // --- the push receiver: Google sends only headers; an unknown channel or a wrong token is answered like a good one ---
      api.post('/event-bus/drive-webhook', async (req, res) => {
        const notification = parsePushHeaders(req.headers);
        if (notification) await watching.notify(notification);
        res.status(200).end();
      });

      // --- internal routes of cloud_drive_fetch_task (libs/contracts cloud-drive.ts) ---
      const importRoute: RequestHandler = async (req, res) => {
        const checked = validatePlain(DocumentImportQuery, { ...(req.query as Record<string, unknown>) });
        if (!checked.ok) {
          req.resume();
          throw BadRequestError.withErrors('Invalid import query', checked.errors);
        }
        const key = req.header('idempotency-key');
        if (key !== undefined && (key.length === 0 || key.length > 200)) {
          req.resume();
          throw BadRequestError.withErrors('Invalid Idempotency-Key', ['Idempotency-Key must have 1 to 200 characters']);
        }
        const encoding = bodyEncodingOf(req.headers);
        if (!isReadableBodyEncoding(encoding)) {
          req.resume();
          throw unsupportedEncodingError(encoding);
        }
        const q = checked.value;
        // A compressed body is stored inflated (as an upload's); the importer's size limit counts the inflated bytes.
        const content = encoding === 'identity' ? req : inflatedBody(req, encoding, deps.importer.maxBytes + 1);
        const imported = await deps.importer.import({
          userId: q.user_id,
          fileName: q.file_name,
          contentType: req.header('content-type') ?? 'application/octet-stream',
          content,
          source: q.source,
          ...(q.source_ref ? { sourceRef: q.source_ref } : {}),
          ...(key ? { idempotencyKey: key } : {}),
        });
        res.status(201).json(imported);
      };
      api.post(DOCUMENT_IMPORT_ROUTE, requireService, importRoute);
      api.post('/internal/cloud-drive/access-token', requireService, async (req, res) => {
        const checked = validatePlain(DriveAccessTokenRequest, req.body ?? {});
        if (!checked.ok) throw BadRequestError.withErrors('Invalid request body', checked.errors);
        const lent = await deps.lender.lend(checked.value.user_id, checked.value.force_refresh ?? false);
        if (lent.kind === 'lent') res.json({ access_token: lent.accessToken, expires_at: new Date(lent.expiresAt).toISOString() });
        else res.status(lent.status).json({ error: lent.kind, message: lent.message, details: {} });
      });

      logger.debug('event bus routes mounted');
      describeEventBusRoutes(ctx.openapi);
    },
  };
}

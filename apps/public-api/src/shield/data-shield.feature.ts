import type { RequestHandler } from 'express';
import { requireServiceAuth } from '@docflow/internal-auth';
import { BadRequestError, currentCorrelationId, NotFoundError } from '@docflow/service-kit';
import { idParam } from '../platform';
import { currentUser } from '../identity';
import type { ApiFeature, PlatformServices } from '../platform';
import type { DetectorKind } from './data-shield-detector.entity';
import { auditEntriesOf } from './data-shield-audit';
import { parseDetectorCreate, parseDetectorUpdate, parsePreview, parseSubjectSetting } from './data-shield.dto';
import { describeDataShieldRoutes } from './data-shield.openapi';
import { DataShieldRepository } from './data-shield.repository';
import { DataShieldService, tenantOf } from './data-shield.service';

/** The Data Shield settings service over a database, for the features that shield their model calls (agents, chatbots). */
export function createDataShieldSettings(database: ConstructorParameters<typeof DataShieldRepository>[0]): DataShieldService {
  return new DataShieldService(new DataShieldRepository(database));
}
import { PreviewClient } from './preview.client';
import type { AuthGuards, AuditLog } from '../identity';

/** Path segment → detector kind (spec 4.17 rule 4: L1 patterns, L2 word lists, L3 recognizers). */
const KINDS: readonly (readonly [path: string, kind: DetectorKind])[] = [
  ['patterns', 'pattern'],
  ['word-lists', 'word_list'],
  ['recognizers', 'recognizer'],
];

function positiveInt(value: unknown, fallback: number, max: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,6}$/.test(value) || Number(value) < 1) throw BadRequestError.withErrors(`Invalid ${name}`, [`${name} must be a positive integer`]);
  return Math.min(Number(value), max);
}

/**
 * Data Shield in the public API: preview and recent events (spec 4.14), the
 * caller's tenant detectors and packs (4.17 rule 4), and two internal routes
 * for the gateway: its tenant detectors and its audit rows (4.17 rule 9,
 * DMS_URL). The tenant is the owning user.
 */
export const dataShieldFeature: ApiFeature<Pick<PlatformServices, 'config' | 'database' | 'openapi'> & { auth: AuthGuards; audit: AuditLog }> = {
  name: 'data-shield',
  register(api, ctx) {
    const service = new DataShieldService(new DataShieldRepository(ctx.database));
    const previews = new PreviewClient({ llmServiceUrl: ctx.config.LLM_SERVICE_URL, serviceKey: ctx.config.SERVICE_KEY });
    const { requireAuth } = ctx.auth;
    const requireService: RequestHandler = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });

    api.post('/data-shield/preview', requireAuth, async (req, res) => {
      const body = parsePreview(req.body);
      const user = currentUser(req);
      const answer = await previews.preview({ text: body.text, entityTypes: body.entityTypes, tenant: tenantOf(user.id), actorUserId: user.id, correlationId: currentCorrelationId() });
      res.json({
        tokenised_text: answer.text,
        entities: answer.entities,
        entity_counts: answer.entity_counts,
        layers: answer.layers,
        latency_ms: answer.latencies_ms,
      });
    });

    api.get('/data-shield/recent-events', requireAuth, async (req, res) => {
      const page = positiveInt(req.query['pagination[page]'] ?? req.query['page'], 1, 100_000, 'page');
      const pageSize = positiveInt(req.query['pagination[pageSize]'] ?? req.query['limit'], 25, 100, 'pageSize');
      res.json(await service.recentEvents(currentUser(req).id, page, pageSize));
    });

    for (const [path, kind] of KINDS) {
      const id = (value: unknown) => {
        const n = idParam(value);
        if (n === undefined) throw new NotFoundError('Not found');
        return n;
      };
      api.get(`/data-shield/${path}`, requireAuth, async (req, res) => {
        res.json(await service.list(currentUser(req).id, kind));
      });
      api.post(`/data-shield/${path}`, requireAuth, async (req, res) => {
        res.status(201).json({ data: await service.create(currentUser(req).id, kind, parseDetectorCreate(kind, req.body)) });
      });
      api.get(`/data-shield/${path}/:id`, requireAuth, async (req, res) => {
        res.json({ data: await service.get(currentUser(req).id, kind, id(req.params['id'])) });
      });
      api.put(`/data-shield/${path}/:id`, requireAuth, async (req, res) => {
        res.json({ data: await service.update(currentUser(req).id, kind, id(req.params['id']), parseDetectorUpdate(kind, req.body)) });
      });
      api.delete(`/data-shield/${path}/:id`, requireAuth, async (req, res) => {
        res.json({ data: await service.remove(currentUser(req).id, kind, id(req.params['id'])) });
      });
    }

    api.get('/data-shield/packs', requireAuth, async (req, res) => {
      res.json(await service.packs(currentUser(req).id));
    });
    api.post('/data-shield/packs/:name/install', requireAuth, async (req, res) => {
      res.json({ data: await service.install(currentUser(req).id, String(req.params['name'])) });
    });
    api.post('/data-shield/packs/:name/uninstall', requireAuth, async (req, res) => {
      res.json({ data: await service.uninstall(currentUser(req).id, String(req.params['name'])) });
    });
    api.delete('/data-shield/packs/:name', requireAuth, async (req, res) => {
      res.json({ data: await service.uninstall(currentUser(req).id, String(req.params['name'])) });
    });

    for (const [path, kind] of [
      ['agents', 'agent'],
      ['chatbots', 'chatbot'],
    ] as const) {
      const id = (value: unknown) => {
        const n = idParam(value);
        if (n === undefined) throw new NotFoundError(kind === 'agent' ? 'Agent not found' : 'Chatbot not found');
        return n;
      };
      api.get(`/data-shield/${path}/:id`, requireAuth, async (req, res) => {
        res.json({ data: await service.subjectSetting(currentUser(req).id, kind, id(req.params['id'])) });
      });
      api.put(`/data-shield/${path}/:id`, requireAuth, async (req, res) => {
        res.json({ data: await service.putSubjectSetting(currentUser(req).id, kind, id(req.params['id']), parseSubjectSetting(req.body)) });
      });
    }

    api.get('/internal/data-shield/detectors', requireService, async (req, res) => {
      const tenant = req.query['tenant'];
      if (typeof tenant !== 'string' || !/^[1-9]\d{0,9}$/.test(tenant)) throw BadRequestError.withErrors('Invalid tenant', ['tenant must be a user id']);
      res.json(await service.tenantDetectors(Number(tenant)));
    });

    api.post('/internal/data-shield/audit-events', requireService, (req, res) => {
      const entries = auditEntriesOf(req.body, ctx.config.DATA_SHIELD_AUDIT_RETENTION_DAYS);
      if (!ctx.config.DATA_SHIELD_AUDIT_DISABLED) for (const entry of entries) ctx.audit.record(entry);
      res.status(202).json({ accepted: ctx.config.DATA_SHIELD_AUDIT_DISABLED ? 0 : entries.length });
    });

    describeDataShieldRoutes(ctx.openapi);
  },
};

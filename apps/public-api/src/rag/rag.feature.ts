import type { Request } from 'express';
import { requireServiceAuth } from '@docflow/internal-auth';
import { BadRequestError } from '@docflow/service-kit';
import { currentUser } from '../identity';
import type { ApiFeature, PlatformServices } from '../platform';
import { DEFAULT_TOP_K, InternalRagEnableBody, InternalRagQueryBody, parseRagBody, parseDocumentId, RagEnableBody, RagQueryBody } from './rag.dto';
import { describeRagRoutes } from './rag.openapi';
import type { RagService } from './rag.service';
import type { AuthGuards, QuotasService } from '../identity';

function optionalUserId(req: Request): number | undefined {
  const raw = (req.query as Record<string, unknown>)['user_id'];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > 2147483647) {
    throw BadRequestError.withErrors('Invalid query', ['user_id: a positive integer is expected']);
  }
  return Number(raw);
}

/** RAG routes (spec 4.2 rag-enable, 4.14): enabling, status for internal callers, and questions. */
export function createRagFeature(service: RagService): ApiFeature<Pick<PlatformServices, 'config' | 'openapi'> & { auth: AuthGuards; quotas: Pick<QuotasService, 'assertLlmBudget'> }> {
  return {
    name: 'rag',
    register(api, ctx) {
      const requireAuth = ctx.auth.requireAuth;
      const requireService = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });

      api.post('/documents/:id/rag-enable', requireAuth, async (req, res) => {
        const id = parseDocumentId(req.params.id);
        const body = parseRagBody(RagEnableBody, req.body);
        const result = await service.enable(id, currentUser(req).id, body.force_reprocess ?? false);
        res.status(result.queued ? 202 : 200).json(result);
      });

      api.post('/rag/query', requireAuth, async (req, res) => {
        const body = parseRagBody(RagQueryBody, req.body);
        // The answer is a model call of the caller's: refused (429) once their monthly LLM cost quota is used up.
        await ctx.quotas.assertLlmBudget(currentUser(req).id);
        res.json(await service.ask(currentUser(req).id, { query: body.query.trim(), topK: body.top_k ?? DEFAULT_TOP_K, sessionId: body.session_id }));
      });

      api.post('/internal/rag/enable', requireService, async (req, res) => {
        const body = parseRagBody(InternalRagEnableBody, req.body);
        const result = await service.enable(body.document_id, body.user_id, body.force_reprocess ?? false);
        res.status(result.queued ? 202 : 200).json(result);
      });

      api.post('/internal/rag/query', requireService, async (req, res) => {
        const body = parseRagBody(InternalRagQueryBody, req.body);
        res.json(await service.ask(body.user_id, { query: body.query.trim(), topK: body.top_k ?? DEFAULT_TOP_K, sessionId: body.session_id }));
      });

      api.get('/internal/documents/:id/rag-status', requireService, async (req, res) => {
        res.json(await service.status(parseDocumentId(req.params.id), optionalUserId(req)));
      });

      describeRagRoutes(ctx.openapi);
    },
  };
}

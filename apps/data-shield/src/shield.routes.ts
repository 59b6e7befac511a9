import { Router } from 'express';
import { DetectorError, InvalidScopeError, type ShieldService, type TokeniseRequest } from '@docflow/data-shield';
import { AppError, currentCorrelationId, ServiceUnavailableError, parseBody } from '@docflow/service-kit';
import { DetectBody, RestoreBody, RestoreStreamBody, TokeniseBody } from './shield-requests';

/** A detector failed: 503, and the caller sends nothing (spec 4.17 rule 8). */
function failClosed(err: unknown): never {
  if (err instanceof DetectorError) throw new ServiceUnavailableError('Data Shield could not run its detectors; the text must not be sent', { retry_after: 5 }, 'data_shield_unavailable');
  if (err instanceof InvalidScopeError) throw new AppError(400, 'BadRequestError', `scope_id: ${err.message}`, {}, 'invalid_scope');
  throw err;
}

/**
 * POST /tokenise: the body → the answer. Served by the express route below
 * and, in the running service, by the JSON lane ahead of express (app.ts).
 */
export async function tokenise(shield: ShieldService, raw: unknown): Promise<Record<string, unknown>> {
  const result = await shield.tokenise(tokeniseRequest(raw, 'Invalid tokenise request')).catch(failClosed);
  return { scope_id: result.scopeId, texts: result.texts, entity_counts: result.entityCounts, layers: result.layers, latencies_ms: result.latencies };
}

/** A tokenise body (also the body of /entities) as the service's request, run under the current correlation id. */
function tokeniseRequest(raw: unknown, message: string): TokeniseRequest {
  const body = parseBody(TokeniseBody, raw, { message });
  return { texts: body.texts, entityTypes: body.entity_types, tenant: body.tenant, actorUserId: body.actor_user_id, correlationId: currentCorrelationId(), context: body.context };
}

/**
 * POST /entities: the body (a tokenise body) → each text's entities as
 * `[type, start, end]` triples, for a caller that makes the tokens and keeps
 * the reverse map in its own memory (the LLM service): no scope is sealed,
 * and the answer carries no text. Served like /tokenise (app.ts).
 */
export async function entities(shield: ShieldService, raw: unknown): Promise<Record<string, unknown>> {
  const result = await shield.detectTexts(tokeniseRequest(raw, 'Invalid entities request')).catch(failClosed);
  return { entities: result.entities.map((list) => list.map((e) => [e.type, e.start, e.end])), entity_counts: result.entityCounts, layers: result.layers, latencies_ms: result.latencies };
}

/**
 * The gateway's API for the other services (spec 4.16, 4.17):
 *   POST /tokenise       {texts, entity_types?, tenant?, actor_user_id?, context?} → {scope_id, texts, entity_counts, layers, latencies_ms}
 *   POST /entities       {texts, entity_types?, tenant?, actor_user_id?, context?} → {entities: [[type, start, end], ...] per text, entity_counts, layers, latencies_ms}
 *   POST /restore        {scope_id, texts} → {texts}
 *   POST /restore-stream {scope_id, chunks} → {chunks} (each chunk restored as a stream would be; a token split across chunks is restored whole)
 *   POST /detect         {text, entity_types?, tenant?, actor_user_id?} → {text, entities, entity_counts, layers, latencies_ms}
 * `scope_id` is the sealed reverse map: the gateway stores nothing. After
 * /entities the caller makes the tokens itself: the gateway never sees them.
 */
export function shieldRoutes(shield: ShieldService): Router {
  const router = Router();

  router.post('/tokenise', async (req, res) => {
    res.json(await tokenise(shield, req.body));
  });

  router.post('/entities', async (req, res) => {
    res.json(await entities(shield, req.body));
  });

  router.post('/restore', (req, res) => {
    const body = parseBody(RestoreBody, req.body, { message: 'Invalid restore request' });
    let texts: string[];
    try {
      texts = shield.restore(body.scope_id, body.texts);
    } catch (err) {
      failClosed(err);
    }
    res.json({ texts });
  });

  router.post('/restore-stream', (req, res) => {
    const body = parseBody(RestoreStreamBody, req.body, { message: 'Invalid restore-stream request' });
    let chunks: string[];
    try {
      const restorer = shield.streamRestorer(body.scope_id);
      chunks = body.chunks.map((c) => restorer.push(c));
      const tail = restorer.end();
      if (chunks.length > 0) chunks[chunks.length - 1] += tail;
    } catch (err) {
      failClosed(err);
    }
    res.json({ chunks });
  });

  router.post('/detect', async (req, res) => {
    const body = parseBody(DetectBody, req.body, { message: 'Invalid detect request' });
    const result = await shield
      .preview({ text: body.text, entityTypes: body.entity_types, tenant: body.tenant, actorUserId: body.actor_user_id, correlationId: currentCorrelationId(), context: body.context })
      .catch(failClosed);
    res.json({ text: result.text, entities: result.entities, entity_counts: result.entityCounts, layers: result.layers, latencies_ms: result.latencies });
  });

  return router;
}

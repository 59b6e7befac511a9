import type { RequestHandler } from 'express';
import { requireServiceAuth } from '@docflow/internal-auth';
import { listQueryString, parseListQuery } from '@docflow/list-query';
import { BadRequestError, NotFoundError, parseBody, TooManyRequestsError } from '@docflow/service-kit';
import { idParam, publicCors, streamChat, wantsEventStream } from '../platform';
import { currentUser } from '../identity';
import type { ApiFeature, PlatformServices } from '../platform';
import { parseCreateAgent, parseCreateConversation, parseEscalation, parseMessage, parsePublicChat, parseUpdateAgent } from './agents.dto';
import { describeAgentRoutes } from './agents.openapi';
import type { AgentRuntime } from './agent-runtime';
import { agentListSpec } from './agents.repository';
import { AGENT_NOT_FOUND } from './agents.service';
import { conversationListSpec } from './conversations.repository';
import { DEFAULT_MESSAGE_LIMIT, toSessionView } from './conversations.service';
import type { AuthGuards } from '../identity';
import { HumanReplyBody } from './escalation/escalation.dto';

function agentId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(AGENT_NOT_FOUND);
  return id;
}

function messageLimit(value: unknown): number {
  if (value === undefined) return DEFAULT_MESSAGE_LIMIT;
  const n = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 500)) throw BadRequestError.withErrors('Invalid limit', ['limit: an integer from 1 to 500']);
  return n;
}

/** Spec 4.11: agents, their public config and chat, and agent conversations. */
export function createAgentsFeature(runtime: Pick<AgentRuntime, 'agents' | 'conversations'>): ApiFeature<Pick<PlatformServices, 'config' | 'openapi' | 'logger'> & { auth: AuthGuards }> {
  return {
    name: 'agents',
    register(api, ctx) {
      const { agents, conversations } = runtime;
      const { requireAuth, requireStepUp } = ctx.auth;
      const requireService = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });
      /** X-Agent-Key, or else a bearer token. */
      const keyOrBearer: RequestHandler = (req, res, next) => (req.header('x-agent-key') ? next() : requireAuth(req, res, next));

      // Widgets on other sites (issue 18 item 8): CORS by each agent's allowed_origins, and answers as server-sent events.
      const logger = ctx.logger.child({ component: 'agents' });
      const allowedOrigins = (slug: string) => agents.allowedOrigins(slug);
      const configCors = publicCors({ methods: ['GET'], headers: ['Accept', 'X-Correlation-Id'], allowedOrigins, notFound: AGENT_NOT_FOUND });
      const chatCors = publicCors({ methods: ['POST'], headers: ['Content-Type', 'Accept', 'X-Agent-Key', 'Authorization', 'X-Correlation-Id'], allowedOrigins, notFound: AGENT_NOT_FOUND });

      api.options('/agents/:slug/public-config', configCors.preflight);
      api.get('/agents/:slug/public-config', configCors.headers, async (req, res) => {
        res.json(await agents.publicConfig(String(req.params['slug'])));
      });

      api.options('/agents/:slug/public-chat', chatCors.preflight);
      api.post('/agents/:slug/public-chat', chatCors.headers, keyOrBearer, async (req, res) => {
        const turn = parsePublicChat(req.body, req.query['session_id']);
        const key = req.header('x-agent-key');
        const caller = key ? { key, origin: req.header('origin'), referer: req.header('referer') } : { user: currentUser(req) };
        try {
          if (wantsEventStream(req)) await streamChat(res, logger, (accepted) => agents.publicChat(String(req.params['slug']), caller, { ...turn, accepted }));
          else res.json(await agents.publicChat(String(req.params['slug']), caller, turn));
        } catch (err) {
          if (err instanceof TooManyRequestsError) res.setHeader('Retry-After', String(err.details['retry_after']));
          throw err;
        }
      });

      api.get('/agents', requireAuth, async (req, res) => {
        res.json(await agents.list(currentUser(req), parseListQuery(listQueryString(req.originalUrl), agentListSpec)));
      });

      api.post('/agents', requireAuth, async (req, res) => {
        const settings = parseCreateAgent(req.body);
        res.status(201).json({ data: await agents.create(currentUser(req), settings) });
      });

      api.get('/agents/:id', requireAuth, async (req, res) => {
        res.json({ data: await agents.get(currentUser(req), agentId(req.params['id'])) });
      });

      api.put('/agents/:id', requireAuth, async (req, res) => {
        const id = agentId(req.params['id']);
        const settings = parseUpdateAgent(req.body);
        res.json({ data: await agents.update(currentUser(req), id, settings) });
      });

      api.delete('/agents/:id', requireAuth, async (req, res) => {
        await agents.delete(currentUser(req), agentId(req.params['id']));
        res.json({ success: true });
      });

      api.post('/agents/:id/regenerate-key', requireAuth, requireStepUp, async (req, res) => {
        res.json({ data: await agents.regenerateKey(currentUser(req), agentId(req.params['id'])) });
      });

      api.get('/agent-conversations', requireAuth, async (req, res) => {
        res.json(await conversations.list(currentUser(req).id, parseListQuery(listQueryString(req.originalUrl), conversationListSpec)));
      });

      api.post('/agent-conversations', requireAuth, async (req, res) => {
        const input = parseCreateConversation(req.body);
        // The agent must be one the caller may use.
        if (input.agentId !== null) await agents.get(currentUser(req), input.agentId);
        res.status(201).json({ data: toSessionView(await conversations.create(currentUser(req).id, input)) });
      });

      api.get('/agent-conversations/:sessionId/messages', requireAuth, async (req, res) => {
        res.json({ data: await conversations.messages(String(req.params['sessionId']), currentUser(req).id, messageLimit(req.query['limit'])) });
      });

      api.post('/agent-conversations/:sessionId/messages', requireAuth, async (req, res) => {
        const message = parseMessage(req.body);
        res.status(201).json({ data: await conversations.add(String(req.params['sessionId']), currentUser(req).id, message) });
      });

      api.post('/internal/agent-conversations/:sessionId/messages', requireService, async (req, res) => {
        const message = parseMessage(req.body);
        await conversations.add(String(req.params['sessionId']), undefined, message);
        res.status(201).json({ success: true });
      });

      api.put('/agent-conversations/:sessionId/escalate', requireAuth, async (req, res) => {
        await conversations.escalate(String(req.params['sessionId']), currentUser(req).id, parseEscalation(req.body));
        res.json({ success: true });
      });

      api.put('/internal/agent-conversations/:sessionId/escalate', requireService, async (req, res) => {
        await conversations.escalate(String(req.params['sessionId']), undefined, parseEscalation(req.body));
        res.json({ success: true });
      });

      api.get('/agent-conversations/escalated', requireAuth, async (req, res) => {
        res.json({ data: await conversations.awaitingPerson(currentUser(req).id) });
      });

      api.post('/agent-conversations/:sessionId/human-reply', requireAuth, async (req, res) => {
        const { content } = parseBody(HumanReplyBody, req.body, { firstErrorOnly: true });
        const user = currentUser(req);
        res.status(201).json({ data: await conversations.replyAsPerson(String(req.params['sessionId']), { id: user.id, email: user.email }, content) });
      });

      api.delete('/agent-conversations/:sessionId', requireAuth, async (req, res) => {
        await conversations.delete(String(req.params['sessionId']), currentUser(req).id);
        res.json({ success: true });
      });

      describeAgentRoutes(ctx.openapi);
    },
  };
}

import { NotFoundError } from '@docflow/service-kit';
import { idParam, publicCors, streamChat, wantsEventStream } from '../../platform';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { createDataShieldSettings } from '../../shield';
import type { RagModule } from '../../rag';
import { parseChatQuestion, parseCreateChatbot, parseUpdateChatbot } from './chatbots.dto';
import { describeChatbotRoutes } from './chatbots.openapi';
import { ChatbotsRepository } from './chatbots.repository';
import { CHATBOT_NOT_FOUND, ChatbotsService } from './chatbots.service';
import type { AuthGuards, QuotasService } from '../../identity';

function chatbotId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(CHATBOT_NOT_FOUND);
  return id;
}

/** Spec 4.12: chatbots of the caller, and their public config and chat (X-Chatbot-Key). */
export function createChatbotsFeature(deps: {
  rag: RagModule;
  quotas: Pick<QuotasService, 'assertLlmBudget'>;
}): ApiFeature<Pick<PlatformServices, 'config' | 'database' | 'openapi' | 'limits' | 'logger'> & { auth: AuthGuards }> {
  return {
    name: 'chatbots',
    register(api, ctx) {
      const shieldSettings = createDataShieldSettings(ctx.database);
      const chatbots = new ChatbotsService({
        repo: new ChatbotsRepository(ctx.database),
        // A chatbot whose owner turned Data Shield on answers through a shielded model call.
        ask: async (ownerId, q, chatbotId) => {
          // The answer's model call is the owner's: refused (429) once their monthly LLM cost quota is used up.
          await deps.quotas.assertLlmBudget(ownerId);
          const dataShield = await shieldSettings.shieldFor('chatbot', { id: chatbotId, ownerId });
          // Visitors get download links of minutes (issue 13, low), not the hour of the owner's own answers.
          return deps.rag.service.ask(ownerId, { ...q, signedUrlTtlSeconds: ctx.config.CHATBOT_SIGNED_URL_TTL_SECONDS, ...(dataShield ? { dataShield } : {}) });
        },
        limits: ctx.limits,
      });
      const { requireAuth, requireStepUp } = ctx.auth;

      // Widgets on other sites (issue 18 item 8): CORS by each chatbot's allowed_origins, and answers as server-sent events.
      const logger = ctx.logger.child({ component: 'chatbots' });
      const allowedOrigins = (slug: string) => chatbots.allowedOrigins(slug);
      const configCors = publicCors({ methods: ['GET'], headers: ['Accept', 'X-Correlation-Id'], allowedOrigins, notFound: CHATBOT_NOT_FOUND });
      const chatCors = publicCors({ methods: ['POST'], headers: ['Content-Type', 'Accept', 'X-Chatbot-Key', 'X-Correlation-Id'], allowedOrigins, notFound: CHATBOT_NOT_FOUND });

      api.options('/chatbots/:slug/config', configCors.preflight);
      api.get('/chatbots/:slug/config', configCors.headers, async (req, res) => {
        res.json(await chatbots.publicConfig(String(req.params['slug'])));
      });

      api.options('/chatbots/:slug/chat', chatCors.preflight);
      api.post('/chatbots/:slug/chat', chatCors.headers, async (req, res) => {
        const question = parseChatQuestion(req.body, req.query['session_id']);
        const request = { slug: String(req.params['slug']), key: req.header('x-chatbot-key'), origin: req.header('origin'), referer: req.header('referer'), ...question };
        if (wantsEventStream(req)) await streamChat(res, logger, (accepted) => chatbots.chat({ ...request, accepted }));
        else res.json(await chatbots.chat(request));
      });

      api.get('/chatbots', requireAuth, async (req, res) => {
        res.json({ data: await chatbots.list(currentUser(req).id) });
      });

      api.post('/chatbots', requireAuth, async (req, res) => {
        const settings = parseCreateChatbot(req.body);
        res.status(201).json({ data: await chatbots.create(currentUser(req).id, settings) });
      });

      api.get('/chatbots/:id', requireAuth, async (req, res) => {
        res.json({ data: await chatbots.get(currentUser(req).id, chatbotId(req.params['id'])) });
      });

      api.put('/chatbots/:id', requireAuth, async (req, res) => {
        const id = chatbotId(req.params['id']);
        const settings = parseUpdateChatbot(req.body);
        res.json({ data: await chatbots.update(currentUser(req).id, id, settings) });
      });

      api.delete('/chatbots/:id', requireAuth, async (req, res) => {
        await chatbots.delete(currentUser(req).id, chatbotId(req.params['id']));
        res.json({ success: true });
      });

      api.post('/chatbots/:id/regenerate-key', requireAuth, requireStepUp, async (req, res) => {
        res.json({ data: await chatbots.regenerateKey(currentUser(req).id, chatbotId(req.params['id'])) });
      });

      describeChatbotRoutes(ctx.openapi);
    },
  };
}

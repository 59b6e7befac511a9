import { createLlmClient } from '@docflow/llm-client';
import { NotFoundError } from '@docflow/service-kit';
import { ActivitiesRepository } from '../activities/activities.repository';
import { idParam } from '../activities/request-body';
import { agentTools } from '../agents/agent-tools';
import { AgentsRepository } from '../agents/agents.repository';
import { currentUser } from '../auth/auth-user';
import type { ApiFeature } from '../feature';
import { PromptsRepository } from '../prompts/prompts.repository';
import type { RagModule } from '../rag';
import type { DocumentFeatures } from '../storage-wiring/document-features';
import { parseCreateSquad, parseKickoff, parseUpdateSquad } from './squads.dto';
import { describeSquadRoutes } from './squads.openapi';
import { SquadsRepository } from './squads.repository';
import { SQUAD_NOT_FOUND, SquadsService } from './squads.service';

function squadId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(SQUAD_NOT_FOUND);
  return id;
}

/** Spec 4.15: POST /squads (wrapped in data), kicked off by numeric id; the other routes follow the agents'. */
export function createSquadsFeature(deps: { documents: DocumentFeatures; rag: RagModule }): ApiFeature {
  return {
    name: 'squads',
    register(api, ctx) {
      const agents = new AgentsRepository(ctx.database);
      const squads = new SquadsService(new SquadsRepository(ctx.database), agents, {
        llm: createLlmClient({ baseUrl: ctx.config.LLM_SERVICE_URL, serviceKey: ctx.config.SERVICE_KEY, timeoutMs: 120_000, logger: ctx.logger.child({ component: 'squads' }) }),
        tools: agentTools({
          activities: new ActivitiesRepository(ctx.database),
          documents: deps.documents.documents,
          prompts: new PromptsRepository(ctx.database),
          agents,
          squads: new SquadsRepository(ctx.database),
          ask: (userId, q) => deps.rag.service.query(userId, q),
        }),
      });
      const { requireAuth } = ctx.auth;

      api.get('/squads', requireAuth, async (req, res) => {
        res.json({ data: await squads.list(currentUser(req).id) });
      });

      api.post('/squads', requireAuth, async (req, res) => {
        const settings = parseCreateSquad(req.body);
        res.status(201).json({ data: await squads.create(currentUser(req).id, settings) });
      });

      api.get('/squads/:id', requireAuth, async (req, res) => {
        res.json({ data: await squads.get(currentUser(req).id, squadId(req.params['id'])) });
      });

      api.put('/squads/:id', requireAuth, async (req, res) => {
        const id = squadId(req.params['id']);
        const settings = parseUpdateSquad(req.body);
        res.json({ data: await squads.update(currentUser(req).id, id, settings) });
      });

      api.delete('/squads/:id', requireAuth, async (req, res) => {
        await squads.delete(currentUser(req).id, squadId(req.params['id']));
        res.json({ success: true });
      });

      api.post('/squads/:id/kickoff', requireAuth, async (req, res) => {
        const id = squadId(req.params['id']);
        const inputs = parseKickoff(req.body);
        res.json({ data: await squads.kickoff(currentUser(req).id, id, inputs) });
      });

      describeSquadRoutes(ctx.openapi);
    },
  };
}

import { NotFoundError } from '@docflow/service-kit';
import { idParam } from '../../platform';
import type { AgentRuntime } from '../agent-runtime';
import { currentUser } from '../../identity';
import type { ApiFeature, PlatformServices } from '../../platform';
import { parseCreateSquad, parseKickoff, parseUpdateSquad } from './squads.dto';
import { describeSquadRoutes } from './squads.openapi';
import { SQUAD_NOT_FOUND } from './squads.service';
import type { AuthGuards } from '../../identity';

function squadId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError(SQUAD_NOT_FOUND);
  return id;
}

/** Spec 4.15: POST /squads (wrapped in data), kicked off by numeric id; the other routes follow the agents'. */
export function createSquadsFeature(runtime: Pick<AgentRuntime, 'squads'>): ApiFeature<Pick<PlatformServices, 'openapi'> & { auth: AuthGuards }> {
  return {
    name: 'squads',
    register(api, ctx) {
      const { squads } = runtime;
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

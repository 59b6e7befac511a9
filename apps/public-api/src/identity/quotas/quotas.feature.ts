import { NotFoundError } from '@docflow/service-kit';
import { idParam } from '../../platform';
import type { ApiFeature, PlatformServices } from '../../platform';
import { currentUser } from '../auth/auth-user';
import type { AuthGuards } from '../auth/guards';
import { parseQuotaUpdate } from './quotas.dto';
import { describeQuotaRoutes } from './quotas.openapi';
import type { QuotasService } from './quotas.service';

function userId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError('User not found');
  return id;
}

/** Quotas (issue 18 item 3): a user's own usage, and the super administrator's view and settings of anyone's. */
export const quotasFeature: ApiFeature<Pick<PlatformServices, 'openapi'> & { auth: AuthGuards; quotas: QuotasService }> = {
  name: 'quotas',
  register(api, ctx) {
    const { requireAuth, requireRole } = ctx.auth;

    api.get('/users/me/usage', requireAuth, async (req, res) => {
      res.json({ data: await ctx.quotas.usage(currentUser(req).id) });
    });

    api.get('/admin/users/:id/quotas', requireAuth, requireRole('super_admin'), async (req, res) => {
      res.json({ data: await ctx.quotas.adminView(userId(req.params['id'])) });
    });

    api.put('/admin/users/:id/quotas', requireAuth, requireRole('super_admin'), async (req, res) => {
      const id = userId(req.params['id']);
      const patch = parseQuotaUpdate(req.body);
      res.json({ data: await ctx.quotas.update(currentUser(req).id, id, patch) });
    });

    describeQuotaRoutes(ctx.openapi);
  },
};

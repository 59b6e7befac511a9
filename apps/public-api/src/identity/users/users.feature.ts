import { currentUser } from '../auth/auth-user';
import type { ApiFeature, PlatformServices } from '../../platform';
import type { AuthGuards } from '../auth/guards';
import type { QuotasService } from '../quotas/quotas.service';

export const usersFeature: ApiFeature<Pick<PlatformServices, 'openapi'> & { auth: AuthGuards; quotas: QuotasService }> = {
  name: 'users',
  register(api, ctx) {
    api.get('/users/me', ctx.auth.requireAuth, async (req, res) => {
      const user = currentUser(req);
      // The quotas at or past 80 % (spec 8); GET /users/me/usage has the figures.
      const { warnings } = await ctx.quotas.usage(user.id);
      res.json({ id: user.id, username: user.username, email: user.email, role: user.role, quota_warnings: warnings });
    });

    ctx.openapi.addSchema('Me', {
      type: 'object',
      required: ['id', 'username', 'email', 'role', 'quota_warnings'],
      properties: {
        id: { type: 'integer' },
        username: { type: 'string' },
        email: { type: 'string', format: 'email' },
        role: { type: 'string', enum: ['super_admin', 'user'] },
        quota_warnings: { type: 'array', description: 'Quotas at or past 80 % of their limit (details: GET /users/me/usage)', items: { type: 'string', enum: ['storage', 'executions', 'llm_cost'] } },
      },
    });
    ctx.openapi.add('get', '/users/me', {
      summary: 'The authenticated user',
      tags: ['users'],
      responses: { 200: { description: 'The caller', schema: { $ref: '#/components/schemas/Me' } } },
    });
  },
};

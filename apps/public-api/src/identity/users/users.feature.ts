import { currentUser } from '../auth/auth-user';
import type { ApiFeature, PlatformServices } from '../../platform';
import type { AuthGuards } from '../auth/guards';

export const usersFeature: ApiFeature<Pick<PlatformServices, 'openapi'> & { auth: AuthGuards }> = {
  name: 'users',
  register(api, ctx) {
    api.get('/users/me', ctx.auth.requireAuth, (req, res) => {
      const user = currentUser(req);
      res.json({ id: user.id, username: user.username, email: user.email, role: user.role });
    });

    ctx.openapi.addSchema('Me', {
      type: 'object',
      required: ['id', 'username', 'email', 'role'],
      properties: { id: { type: 'integer' }, username: { type: 'string' }, email: { type: 'string', format: 'email' }, role: { type: 'string', enum: ['super_admin', 'user'] } },
    });
    ctx.openapi.add('get', '/users/me', {
      summary: 'The authenticated user',
      tags: ['users'],
      responses: { 200: { description: 'The caller', schema: { $ref: '#/components/schemas/Me' } } },
    });
  },
};

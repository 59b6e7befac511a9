import { listQueryString, parseListQuery } from '@docflow/list-query';
import { NotFoundError } from '@docflow/service-kit';
import { idParam } from '../../platform';
import type { AuditLog } from '../audit/audit-log';
import { currentUser } from '../auth/auth-user';
import type { PublicApiConfig } from '../../platform';
import type { PublicApiDatabase } from '../../platform';
import type { ApiFeature, PlatformServices } from '../../platform';
import { CredentialSealer } from './credential-sealer';
import { parseCreateCredential, parseUpdateCredential } from './credentials.dto';
import { describeCredentialRoutes } from './credentials.openapi';
import { credentialListSpec, CredentialsRepository } from './credentials.repository';
import { CredentialsService } from './credentials.service';
import type { AuthGuards } from '../auth/guards';

export function createCredentialsService(deps: {
  config: Pick<PublicApiConfig, 'CREDENTIALS_MASTER_KEY' | 'CREDENTIALS_MASTER_KEY_PREVIOUS'>;
  database: PublicApiDatabase;
  audit: AuditLog;
}): CredentialsService {
  return new CredentialsService(new CredentialsRepository(deps.database), new CredentialSealer(deps.config.CREDENTIALS_MASTER_KEY, deps.config.CREDENTIALS_MASTER_KEY_PREVIOUS), deps.audit);
}

function credentialId(value: unknown): number {
  const id = idParam(value);
  if (id === undefined) throw new NotFoundError('Credential not found');
  return id;
}

/** Spec 4.13: the caller's credentials; values go in, only names come out; deleting needs step-up. */
export const credentialsFeature: ApiFeature<Pick<PlatformServices, 'config' | 'database' | 'openapi'> & { auth: AuthGuards; audit: AuditLog }> = {
  name: 'credentials',
  register(api, ctx) {
    const credentials = createCredentialsService(ctx);
    const { requireAuth, requireStepUp } = ctx.auth;

    api.get('/credentials', requireAuth, async (req, res) => {
      res.json(await credentials.list(currentUser(req).id, parseListQuery(listQueryString(req.originalUrl), credentialListSpec)));
    });

    api.get('/credentials/:id', requireAuth, async (req, res) => {
      res.json({ data: await credentials.get(currentUser(req).id, credentialId(req.params.id)) });
    });

    api.post('/credentials', requireAuth, async (req, res) => {
      const input = parseCreateCredential(req.body);
      res.status(201).json({ data: await credentials.create(currentUser(req).id, input) });
    });

    api.put('/credentials/:id', requireAuth, async (req, res) => {
      const id = credentialId(req.params.id);
      const changes = parseUpdateCredential(req.body);
      res.json({ data: await credentials.update(currentUser(req).id, id, changes) });
    });

    api.delete('/credentials/:id', requireAuth, requireStepUp, async (req, res) => {
      res.json({ data: await credentials.delete(currentUser(req).id, credentialId(req.params.id)) });
    });

    describeCredentialRoutes(ctx.openapi);
  },
};

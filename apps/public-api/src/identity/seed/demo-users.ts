import type { Logger } from '@docflow/service-kit';
import type { PublicApiConfig } from '../../platform';
import type { NewUser, UsersService } from '../users/users.service';

/** The demo accounts of runtime-contract.md (Accounts). */
export const DEMO_USERS: readonly NewUser[] = [
  { username: 'admin', email: 'admin@docflow.local', password: 'Admin#Pass123', role: 'super_admin' },
  { username: 'alice', email: 'alice@docflow.local', password: 'Alice#Pass123', role: 'user' },
  { username: 'bob', email: 'bob@docflow.local', password: 'Bob#Pass123', role: 'user' },
];

/** SEED_DEMO_USERS is never honoured with NODE_ENV=production. */
export function demoUsersWanted(config: Pick<PublicApiConfig, 'SEED_DEMO_USERS' | 'NODE_ENV'>): boolean {
  return config.SEED_DEMO_USERS && config.NODE_ENV !== 'production';
}

/** Creates each demo account that does not exist yet; an existing account is never changed. */
export async function seedDemoUsers(users: UsersService, logger: Logger): Promise<{ created: string[]; existing: string[] }> {
  const created: string[] = [];
  const existing: string[] = [];
  for (const demo of DEMO_USERS) {
    const result = await users.createIfMissing(demo);
    (result.created ? created : existing).push(demo.username);
  }
  logger.info('demo users seeded', { created, existing });
  return { created, existing };
}

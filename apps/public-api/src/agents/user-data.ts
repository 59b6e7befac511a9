import type { UserDataHolder } from '../identity';
import type { PublicApiDatabase } from '../platform';
import { AgentsUserDataRepository } from './user-data.repository';

/** The agents module's part in data exports and account deletions (issue #18): agents, conversations with messages, chatbots, squads. */
export function agentsUserData(deps: { database: PublicApiDatabase }): UserDataHolder {
  const repo = new AgentsUserDataRepository(deps.database);
  return {
    service: 'agents',
    exportUser: async (userId) => ({
      sections: { agents: await repo.agents(userId), conversations: await repo.conversations(userId), chatbots: await repo.chatbots(userId), squads: await repo.squads(userId) },
    }),
    purgeUser: (userId) => repo.deleteAll(userId),
  };
}

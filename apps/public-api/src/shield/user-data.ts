import type { UserDataHolder } from '../identity';
import type { PublicApiDatabase } from '../platform';
import { ShieldUserDataRepository } from './user-data.repository';

/** Data Shield's part in data exports and account deletions (issue #18). */
export function shieldUserData(deps: { database: PublicApiDatabase }): UserDataHolder {
  const repo = new ShieldUserDataRepository(deps.database);
  return {
    service: 'data_shield',
    exportUser: async (userId) => {
      const copy = await repo.copy(userId);
      return { sections: { detectors: copy.detectors, packs: copy.packs, subject_settings: copy.subjectSettings } };
    },
    purgeUser: (userId) => repo.deleteAll(userId),
  };
}

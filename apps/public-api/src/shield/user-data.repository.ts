import { deleteUserRows, type PublicApiDatabase } from '../platform';

type Row = Record<string, unknown>;

const TABLES = { detectors: 'data_shield_detectors', packs: 'data_shield_packs', subjectSettings: 'data_shield_subject_settings' } as const;

/** Data Shield's rows of one user (issue #18): tenant detectors, installed packs, per-agent and per-chatbot settings. */
export class ShieldUserDataRepository {
  constructor(private readonly ds: PublicApiDatabase) {}

  async copy(userId: number): Promise<Record<keyof typeof TABLES, Row[]>> {
    const out = {} as Record<keyof typeof TABLES, Row[]>;
    for (const [name, table] of Object.entries(TABLES) as [keyof typeof TABLES, string][]) {
      out[name] = (await this.ds.query(`SELECT * FROM ${table} WHERE owner_id = $1`, [userId])) as Row[];
    }
    return out;
  }

  async deleteAll(userId: number): Promise<Record<string, number>> {
    return this.ds.transaction(async (m) => {
      const counts: Record<string, number> = {};
      for (const [name, table] of Object.entries(TABLES)) {
        counts[name] = await deleteUserRows(m, table, userId);
      }
      return counts;
    });
  }
}

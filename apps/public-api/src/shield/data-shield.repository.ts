import { AuditRecordEntity } from '../identity';
import type { PublicApiDatabase } from '../platform';
import { DataShieldDetectorEntity, DataShieldPackEntity, DataShieldSubjectSettingEntity, type DetectorKind, type ShieldSubjectKind } from './data-shield-detector.entity';

export interface DetectorFields {
  name: string;
  entityType: string;
  pattern: string | null;
  words: string[] | null;
  contextWords: string[] | null;
  score: number | null;
  scoreThreshold: number | null;
  enabled: boolean;
}

export type InsertOutcome = { ok: true; row: DataShieldDetectorEntity } | { ok: false; reason: 'name_taken' };

const UNIQUE_VIOLATION = '23505';

function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === UNIQUE_VIOLATION;
}

/** Tenant detectors, installed packs and the tenant's Data Shield audit rows; every read is scoped to the owner. */
export class DataShieldRepository {
  constructor(private readonly database: PublicApiDatabase) {}

  private get detectors() {
    return this.database.getRepository(DataShieldDetectorEntity);
  }

  private get packs() {
    return this.database.getRepository(DataShieldPackEntity);
  }

  list(ownerId: number, kind: DetectorKind): Promise<DataShieldDetectorEntity[]> {
    return this.detectors.find({ where: { ownerId, kind }, order: { id: 'ASC' } });
  }

  listEnabled(ownerId: number): Promise<DataShieldDetectorEntity[]> {
    return this.detectors.find({ where: { ownerId, enabled: true }, order: { id: 'ASC' } });
  }

  find(ownerId: number, kind: DetectorKind, id: number): Promise<DataShieldDetectorEntity | null> {
    return this.detectors.findOneBy({ id, ownerId, kind });
  }

  async insert(ownerId: number, kind: DetectorKind, fields: DetectorFields): Promise<InsertOutcome> {
    try {
      const saved = await this.detectors.save(this.detectors.create({ ownerId, kind, ...fields }));
      return { ok: true, row: (await this.find(ownerId, kind, saved.id)) ?? saved };
    } catch (err) {
      if (isUniqueViolation(err)) return { ok: false, reason: 'name_taken' };
      throw err;
    }
  }

  async update(ownerId: number, kind: DetectorKind, id: number, fields: DetectorFields): Promise<InsertOutcome | { ok: false; reason: 'not_found' }> {
    try {
      const result = await this.detectors.update({ id, ownerId, kind }, fields);
      if (!result.affected) return { ok: false, reason: 'not_found' };
    } catch (err) {
      if (isUniqueViolation(err)) return { ok: false, reason: 'name_taken' };
      throw err;
    }
    const row = await this.find(ownerId, kind, id);
    return row ? { ok: true, row } : { ok: false, reason: 'not_found' };
  }

  async remove(ownerId: number, kind: DetectorKind, id: number): Promise<boolean> {
    const result = await this.detectors.delete({ id, ownerId, kind });
    return (result.affected ?? 0) > 0;
  }

  async installedPacks(ownerId: number): Promise<string[]> {
    return (await this.packs.find({ where: { ownerId }, order: { pack: 'ASC' } })).map((p) => p.pack);
  }

  async install(ownerId: number, pack: string): Promise<void> {
    await this.packs.createQueryBuilder().insert().into(DataShieldPackEntity).values({ ownerId, pack }).orIgnore().execute();
  }

  async uninstall(ownerId: number, pack: string): Promise<boolean> {
    const result = await this.packs.delete({ ownerId, pack });
    return (result.affected ?? 0) > 0;
  }

  /** The owner of an agent or chatbot, or null when it does not exist or has none (a system agent). */
  async subjectOwner(kind: ShieldSubjectKind, id: number): Promise<number | null> {
    const table = kind === 'agent' ? 'agents' : 'chatbots';
    const rows = (await this.database.query(`SELECT owner_id FROM ${table} WHERE id = $1`, [id])) as { owner_id: number | null }[];
    return rows[0]?.owner_id ?? null;
  }

  subjectSetting(kind: ShieldSubjectKind, subjectId: number): Promise<DataShieldSubjectSettingEntity | null> {
    return this.database.getRepository(DataShieldSubjectSettingEntity).findOneBy({ kind, subjectId });
  }

  async saveSubjectSetting(row: { kind: ShieldSubjectKind; subjectId: number; ownerId: number; enabled: boolean; entityTypes: string[] | null }): Promise<DataShieldSubjectSettingEntity> {
    const repo = this.database.getRepository(DataShieldSubjectSettingEntity);
    await repo.upsert(row, ['kind', 'subjectId']);
    return (await this.subjectSetting(row.kind, row.subjectId))!;
  }

  /** The caller's Data Shield audit rows, newest first. */
  async recentEvents(actorUserId: number, page: number, pageSize: number): Promise<{ rows: AuditRecordEntity[]; total: number }> {
    const [rows, total] = await this.database
      .getRepository(AuditRecordEntity)
      .createQueryBuilder('a')
      .where('"a"."actor_user_id" = :actorUserId', { actorUserId })
      .andWhere(`"a"."action" LIKE 'data\\_shield.%'`)
      .orderBy('"a"."created_at"', 'DESC')
      .addOrderBy('"a"."id"', 'DESC')
      .skip((page - 1) * pageSize)
      .take(pageSize)
      .getManyAndCount();
    return { rows, total };
  }
}

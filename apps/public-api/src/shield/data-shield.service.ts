import type { DataShieldOptions } from '@docflow/contracts';
import { DETECTOR_PACKS, type TenantDetectors } from '@docflow/data-shield';
import { ConflictError, NotFoundError } from '@docflow/service-kit';
import { auditRecordView } from '../identity';
import type { DataShieldDetectorEntity, DetectorKind, ShieldSubjectKind } from './data-shield-detector.entity';
import type { DataShieldRepository, DetectorFields } from './data-shield.repository';

export interface DetectorView {
  id: number;
  kind: DetectorKind;
  name: string;
  entity_type: string;
  pattern?: string;
  words?: string[];
  word_count?: number;
  context_words?: string[];
  score: number | null;
  score_threshold?: number | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

const KIND_LABEL: Record<DetectorKind, string> = { pattern: 'Pattern', word_list: 'Word list', recognizer: 'Recognizer' };

function toView(row: DataShieldDetectorEntity): DetectorView {
  const base = {
    id: row.id,
    kind: row.kind,
    name: row.name,
    entity_type: row.entityType,
    score: row.score,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  switch (row.kind) {
    case 'pattern':
      return { ...base, pattern: row.pattern ?? '' };
    case 'word_list':
      return { ...base, words: row.words ?? [], word_count: row.words?.length ?? 0 };
    case 'recognizer':
      return { ...base, pattern: row.pattern ?? '', context_words: row.contextWords ?? [], score_threshold: row.scoreThreshold };
    default: {
      const never: never = row.kind;
      throw new Error(`unknown detector kind ${String(never)}`);
    }
  }
}

function fieldsOf(row: DataShieldDetectorEntity) {
  return {
    name: row.name,
    entityType: row.entityType,
    pattern: row.pattern,
    words: row.words,
    contextWords: row.contextWords,
    score: row.score,
    scoreThreshold: row.scoreThreshold,
    enabled: row.enabled,
  };
}

/** The tenant of a user: the user (no organisations exist; docs/decisions.md). */
export function tenantOf(userId: number): string {
  return String(userId);
}

/** Tenant detectors and packs (spec 4.17 rule 4) and the recent-events view (spec 4.14). */
export class DataShieldService {
  constructor(private readonly repo: DataShieldRepository) {}

  async list(ownerId: number, kind: DetectorKind): Promise<{ data: DetectorView[] }> {
    return { data: (await this.repo.list(ownerId, kind)).map(toView) };
  }

  async get(ownerId: number, kind: DetectorKind, id: number): Promise<DetectorView> {
    const row = await this.repo.find(ownerId, kind, id);
    if (!row) throw new NotFoundError(`${KIND_LABEL[kind]} not found`);
    return toView(row);
  }

  async create(ownerId: number, kind: DetectorKind, fields: DetectorFields): Promise<DetectorView> {
    const outcome = await this.repo.insert(ownerId, kind, fields);
    if (!outcome.ok) throw new ConflictError(`A ${kind.replace('_', ' ')} with this name exists`);
    return toView(outcome.row);
  }

  /** The fields given replace the stored ones. */
  async update(ownerId: number, kind: DetectorKind, id: number, changes: Partial<DetectorFields>): Promise<DetectorView> {
    const current = await this.repo.find(ownerId, kind, id);
    if (!current) throw new NotFoundError(`${KIND_LABEL[kind]} not found`);
    const outcome = await this.repo.update(ownerId, kind, id, { ...fieldsOf(current), ...changes });
    if (outcome.ok) return toView(outcome.row);
    switch (outcome.reason) {
      case 'name_taken':
        throw new ConflictError(`A ${kind.replace('_', ' ')} with this name exists`);
      case 'not_found':
        throw new NotFoundError(`${KIND_LABEL[kind]} not found`);
      default: {
        const never: never = outcome;
        throw new Error(`unknown outcome ${JSON.stringify(never)}`);
      }
    }
  }

  async remove(ownerId: number, kind: DetectorKind, id: number): Promise<{ id: number }> {
    if (!(await this.repo.remove(ownerId, kind, id))) throw new NotFoundError(`${KIND_LABEL[kind]} not found`);
    return { id };
  }

  async packs(ownerId: number) {
    const installed = new Set(await this.repo.installedPacks(ownerId));
    return {
      data: Object.values(DETECTOR_PACKS).map((p) => ({
        name: p.name,
        description: p.description,
        installed: installed.has(p.name),
        detectors: { patterns: p.patterns.length, word_lists: p.word_lists.length, recognizers: p.recognizers.length },
        entity_types: [...new Set([...p.patterns, ...p.word_lists, ...p.recognizers].map((d) => d.entity_type))],
      })),
    };
  }

  async install(ownerId: number, pack: string): Promise<{ name: string; installed: boolean }> {
    if (!DETECTOR_PACKS[pack]) throw new NotFoundError('Detector pack not found');
    await this.repo.install(ownerId, pack);
    return { name: pack, installed: true };
  }

  async uninstall(ownerId: number, pack: string): Promise<{ name: string; installed: boolean }> {
    if (!DETECTOR_PACKS[pack]) throw new NotFoundError('Detector pack not found');
    await this.repo.uninstall(ownerId, pack);
    return { name: pack, installed: false };
  }

  /** Everything the engine runs for a tenant: enabled detectors and installed packs, expanded. */
  async tenantDetectors(ownerId: number): Promise<TenantDetectors> {
    const [rows, packs] = await Promise.all([this.repo.listEnabled(ownerId), this.repo.installedPacks(ownerId)]);
    const out: TenantDetectors = { tenant: tenantOf(ownerId), patterns: [], word_lists: [], recognizers: [] };
    for (const r of rows) {
      const score = r.score ?? undefined;
      if (r.kind === 'pattern') out.patterns.push({ name: r.name, entity_type: r.entityType, pattern: r.pattern ?? '', ...(score !== undefined ? { score } : {}) });
      else if (r.kind === 'word_list') out.word_lists.push({ name: r.name, entity_type: r.entityType, words: r.words ?? [], ...(score !== undefined ? { score } : {}) });
      else
        out.recognizers.push({
          name: r.name,
          entity_type: r.entityType,
          pattern: r.pattern ?? '',
          context_words: r.contextWords ?? [],
          ...(score !== undefined ? { score } : {}),
          ...(r.scoreThreshold !== null ? { score_threshold: r.scoreThreshold } : {}),
        });
    }
    for (const name of packs) {
      const pack = DETECTOR_PACKS[name];
      if (!pack) continue;
      out.patterns.push(...pack.patterns);
      out.word_lists.push(...pack.word_lists);
      out.recognizers.push(...pack.recognizers);
    }
    return out;
  }

  /** Whether the caller's agent or chatbot shields its model calls (off unless set). */
  async subjectSetting(ownerId: number, kind: ShieldSubjectKind, id: number) {
    if ((await this.repo.subjectOwner(kind, id)) !== ownerId) throw new NotFoundError(kind === 'agent' ? 'Agent not found' : 'Chatbot not found');
    const row = await this.repo.subjectSetting(kind, id);
    return { kind, id, enabled: row?.enabled ?? false, entity_types: row?.entityTypes ?? null };
  }

  async putSubjectSetting(ownerId: number, kind: ShieldSubjectKind, id: number, setting: { enabled: boolean; entityTypes: string[] | null }) {
    if ((await this.repo.subjectOwner(kind, id)) !== ownerId) throw new NotFoundError(kind === 'agent' ? 'Agent not found' : 'Chatbot not found');
    const row = await this.repo.saveSubjectSetting({ kind, subjectId: id, ownerId, ...setting });
    return { kind, id, enabled: row.enabled, entity_types: row.entityTypes };
  }

  /**
   * The `data_shield` option for an agent's or chatbot's model calls, for
   * its owner as tenant; undefined when not enabled (or ownerless).
   */
  async shieldFor(kind: ShieldSubjectKind, subject: { id: number; ownerId: number | null }): Promise<DataShieldOptions | undefined> {
    if (subject.ownerId === null) return undefined;
    const row = await this.repo.subjectSetting(kind, subject.id);
    if (!row?.enabled) return undefined;
    return { enabled: true, tenant: tenantOf(subject.ownerId), actor_user_id: subject.ownerId, entry_point: kind, ...(row.entityTypes?.length ? { entity_types: row.entityTypes } : {}) };
  }

  async recentEvents(userId: number, page: number, pageSize: number) {
    const { rows, total } = await this.repo.recentEvents(userId, page, pageSize);
    return { data: rows.map(auditRecordView), meta: { pagination: { page, pageSize, pageCount: Math.ceil(total / pageSize), total } } };
  }
}

import { paginationMeta, type ListQuery, type PaginationMeta } from '@docflow/list-query';
import { NotFoundError } from '@docflow/service-kit';
import type { AuditLog } from '../audit/audit-log';
import type { CredentialEntity } from './credential.entity';
import type { CredentialSealer } from './credential-sealer';
import type { CredentialChanges, CredentialInput } from './credentials.dto';
import type { CredentialRowChanges, CredentialsRepository } from './credentials.repository';

/** A credential as the API shows it: metadata and field names, never a value (spec 2.13). */
export interface CredentialView {
  id: number;
  name: string;
  provider: string;
  description: string | null;
  field_names: string[];
  createdAt: string;
  updatedAt: string;
}

function toView(row: CredentialEntity): CredentialView {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    description: row.description,
    field_names: row.fieldNames,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const notFound = () => new NotFoundError('Credential not found');

/** The owner's credential store; values are sealed on the way in and opened only for the workflow executor. */
export class CredentialsService {
  constructor(
    private readonly repo: CredentialsRepository,
    private readonly sealer: CredentialSealer,
    private readonly audit: AuditLog,
  ) {}

  async list(ownerId: number, q: ListQuery): Promise<{ data: CredentialView[]; meta: { pagination: PaginationMeta } }> {
    const { rows, total } = await this.repo.list(ownerId, q);
    return { data: rows.map(toView), meta: { pagination: paginationMeta(q.pagination, total) } };
  }

  async get(ownerId: number, id: number): Promise<CredentialView> {
    const row = await this.repo.findOwned(id, ownerId);
    if (!row) throw notFound();
    return toView(row);
  }

  async create(ownerId: number, input: CredentialInput): Promise<CredentialView> {
    const row = await this.repo.insert({ ownerId, name: input.name, provider: input.provider, description: input.description, fieldNames: Object.keys(input.fields) }, (credentialId) =>
      this.sealer.seal(input.fields, { credentialId, ownerId }),
    );
    this.audit.record({ action: 'credential.created', actorUserId: ownerId, details: { credential_id: row.id, provider: row.provider, field_count: row.fieldNames.length } });
    return toView(row);
  }

  async update(ownerId: number, id: number, changes: CredentialChanges): Promise<CredentialView> {
    const { fields, ...metadata } = changes;
    const rowChanges: CredentialRowChanges = { ...metadata, ...(fields ? { fieldNames: Object.keys(fields), sealedFields: this.sealer.seal(fields, { credentialId: id, ownerId }) } : {}) };
    const row = await this.repo.update(id, ownerId, rowChanges);
    if (!row) throw notFound();
    this.audit.record({ action: 'credential.updated', actorUserId: ownerId, details: { credential_id: id, fields_replaced: fields !== undefined } });
    return toView(row);
  }

  async delete(ownerId: number, id: number): Promise<{ id: number }> {
    if (!(await this.repo.delete(id, ownerId))) throw notFound();
    this.audit.record({ action: 'credential.deleted', actorUserId: ownerId, details: { credential_id: id } });
    return { id };
  }

  /** Whether the owner has this credential (a run binds only its owner's credentials at start). */
  async exists(ownerId: number, id: number): Promise<boolean> {
    return (await this.repo.findOwned(id, ownerId)) !== null;
  }

  /** The opened fields of an owned credential, for a workflow node's `credential_id` (spec 2.7); undefined when there is none. */
  async fieldsFor(ownerId: number, id: number): Promise<Record<string, string> | undefined> {
    const sealed = await this.repo.sealedFields(id, ownerId);
    return sealed === undefined ? undefined : this.sealer.open(sealed, { credentialId: id, ownerId });
  }
}

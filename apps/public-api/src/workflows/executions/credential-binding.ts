import { BadRequestError } from '@docflow/service-kit';
import { isPlainObject, resolveTemplates, type WorkflowDefinition } from '@docflow/workflow';

/** Where a node's stored credential is opened (CredentialsService.fieldsFor). */
export interface CredentialSource {
  fieldsFor(ownerId: number, id: number): Promise<Record<string, string> | undefined>;
}

function credentialIdOf(value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= 2_147_483_647 ? id : undefined;
}

/**
 * Spec 2.7, rest_api_task rule 3: for every node whose config names a
 * `credential_id`, the owner's credential is opened and its fields resolve
 * that node's templates (`{{api_key}}`, or `{{credential.api_key}}` for any
 * field name), then `credential_id` is removed, before the job reaches a
 * processor. Other templates stay for the processor. Returns the definition
 * unchanged (the same object) when no node names a credential, else a copy;
 * the stored definition is never changed, so a secret lives only in the job.
 * A credential that does not exist or is not the owner's is a 400.
 */
export async function bindCredentials(definition: WorkflowDefinition, ownerId: number, source: CredentialSource): Promise<WorkflowDefinition> {
  const nodes = Array.isArray(definition.nodes) ? definition.nodes : [];
  if (!nodes.some((n) => isPlainObject(n) && isPlainObject(n.data) && isPlainObject(n.data.config) && 'credential_id' in n.data.config)) return definition;
  const errors: string[] = [];
  const bound = await Promise.all(
    nodes.map(async (node) => {
      if (!isPlainObject(node) || !isPlainObject(node.data) || !isPlainObject(node.data.config) || !('credential_id' in node.data.config)) return node;
      const { credential_id: raw, ...config } = node.data.config;
      if (raw === null || raw === undefined) return { ...node, data: { ...node.data, config } };
      const id = credentialIdOf(raw);
      const fields = id === undefined ? undefined : await source.fieldsFor(ownerId, id);
      if (fields === undefined) {
        errors.push(`node ${String(node.id)}: credential_id ${JSON.stringify(raw)} names no credential of yours`);
        return node;
      }
      const resolved = resolveTemplates(config, { ...fields, credential: fields }) as Record<string, unknown>;
      return { ...node, data: { ...node.data, config: resolved } };
    }),
  );
  if (errors.length > 0) throw BadRequestError.withErrors('Unknown credential', errors);
  return { ...definition, nodes: bound } as WorkflowDefinition;
}

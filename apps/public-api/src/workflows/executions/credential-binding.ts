import { BadRequestError } from '@docflow/service-kit';
import { isPlainObject, type WorkflowDefinition } from '@docflow/workflow';

/** The credential store as runs see it (CredentialsService). */
export interface CredentialSource {
  exists(ownerId: number, id: number): Promise<boolean>;
  fieldsFor(ownerId: number, id: number): Promise<Record<string, string> | undefined>;
}

/** A node's `credential_id` as an id (an integer, or its digits as a string), else undefined. */
export function credentialIdOf(value: unknown): number | undefined {
  const id = typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
  return typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= 2_147_483_647 ? id : undefined;
}

type ConfiguredNode = { id: unknown; data: { config: Record<string, unknown> } };

function hasCredential(node: unknown): node is ConfiguredNode {
  return isPlainObject(node) && isPlainObject(node.data) && isPlainObject(node.data.config) && 'credential_id' in node.data.config;
}

/** The credential id a node of a definition names, when it names one. */
export function nodeCredentialId(definition: unknown, nodeId: string): number | undefined {
  const nodes = isPlainObject(definition) && Array.isArray(definition.nodes) ? definition.nodes : [];
  const node = nodes.find((n) => hasCredential(n) && n.id === nodeId);
  return node === undefined ? undefined : credentialIdOf((node as ConfiguredNode).data.config['credential_id']);
}

/**
 * The definition without its nodes' `credential_id`s, for validating the rest
 * at create: a credential id is checked (and normalised, digits to an
 * integer, null dropped) by bindCredentials at run start, against the
 * owner's credentials as they are then. The same object when no node names one.
 */
export function withoutCredentialIds(definition: WorkflowDefinition): WorkflowDefinition {
  const nodes = Array.isArray(definition.nodes) ? definition.nodes : [];
  if (!nodes.some(hasCredential)) return definition;
  const stripped = nodes.map((node: unknown) => {
    if (!hasCredential(node)) return node;
    const { credential_id: _id, ...config } = node.data.config;
    return { ...node, data: { ...node.data, config } };
  });
  return { ...definition, nodes: stripped } as WorkflowDefinition;
}

/**
 * Spec 2.7, rest_api_task rule 3, at run start: every `credential_id` a node
 * names must be one of the owner's credentials (400 otherwise). The job keeps
 * only the id (normalised to an integer; a null one is dropped): the values
 * are opened by the workflow processor when the node runs, through
 * POST /workflow-executions/internal/{id}/node-credential, so no secret is
 * ever in a queue message, a dead-letter queue or the router.
 * Returns the definition unchanged (the same object) when no node names a
 * credential, else a copy.
 */
export async function bindCredentials(definition: WorkflowDefinition, ownerId: number, source: CredentialSource): Promise<WorkflowDefinition> {
  const nodes = Array.isArray(definition.nodes) ? definition.nodes : [];
  if (!nodes.some(hasCredential)) return definition;
  const errors: string[] = [];
  const bound = await Promise.all(
    nodes.map(async (node: unknown) => {
      if (!hasCredential(node)) return node;
      const { credential_id: raw, ...config } = node.data.config;
      if (raw === null || raw === undefined) return { ...node, data: { ...node.data, config } };
      const id = credentialIdOf(raw);
      if (id === undefined || !(await source.exists(ownerId, id))) {
        errors.push(`node ${String(node.id)}: credential_id ${JSON.stringify(raw)} names no credential of yours`);
        return node;
      }
      return { ...node, data: { ...node.data, config: { ...config, credential_id: id } } };
    }),
  );
  if (errors.length > 0) throw BadRequestError.withErrors('Unknown credential', errors);
  return { ...definition, nodes: bound } as WorkflowDefinition;
}

import { BadRequestError } from '@docflow/service-kit';
import type { WorkflowDefinition } from '@docflow/workflow';
import { bindCredentials, nodeCredentialId, type CredentialSource } from './credential-binding';

const store: CredentialSource = {
  async fieldsFor(ownerId, id) {
    return ownerId === 1 && id === 7 ? { api_key: 'sk-123', 'acct.id': 'a-9' } : undefined;
  },
  async exists(ownerId, id) {
    return ownerId === 1 && id === 7;
  },
};

function definition(config: Record<string, unknown>): WorkflowDefinition {
  return {
    nodes: [
      { id: 'start', type: 'task', data: { label: 'Start', task_type: 'custom_task', config: {} } },
      { id: 'call', type: 'task', data: { label: 'Call', task_type: 'rest_api_task', config } },
    ],
    edges: [{ id: 'e1', source: 'start', target: 'call' }],
  } as unknown as WorkflowDefinition;
}

function configOf(def: WorkflowDefinition, id: string): Record<string, unknown> {
  const node = (def.nodes as { id: string; data: { config: Record<string, unknown> } }[]).find((n) => n.id === id);
  return node?.data.config ?? {};
}

describe('bindCredentials', () => {
  it('keeps only the credential id in the job: no field value, templates left for the processor', async () => {
    const config = { url: 'https://api.example.com/v1/{{start.path}}', headers: { Authorization: 'Bearer {{api_key}}', 'X-Account': '{{credential["acct.id"]}}' } };
    const bound = await bindCredentials(definition({ ...config, credential_id: '7' }), 1, store);
    expect(configOf(bound, 'call')).toEqual({ ...config, credential_id: 7 });
    expect(JSON.stringify(bound)).not.toContain('sk-123');
    expect(nodeCredentialId(bound, 'call')).toBe(7);
    expect(nodeCredentialId(bound, 'start')).toBeUndefined();
  });

  it('drops a null credential_id', async () => {
    expect(configOf(await bindCredentials(definition({ url: 'u', credential_id: null }), 1, store), 'call')).toEqual({ url: 'u' });
  });

  it('returns the same definition when no node names a credential', async () => {
    const plain = definition({ url: 'https://x.test' });
    expect(await bindCredentials(plain, 1, store)).toBe(plain);
  });

  it('refuses a credential that is missing, another user’s, or not an id, naming the node', async () => {
    for (const [owner, id] of [
      [1, 8],
      [2, 7],
      [1, 'seven'],
    ] as const) {
      const err = await bindCredentials(definition({ credential_id: id }), owner, store).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).details).toMatchObject({ errors: [expect.stringMatching(/^node call: credential_id .* names no credential of yours$/)] });
    }
  });
});

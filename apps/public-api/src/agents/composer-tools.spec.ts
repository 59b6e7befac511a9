import type { ActivitiesService } from '../workflows';
import type { PromptsService } from '../documents';
import type { ComposerPreview, ComposerRecordType, ConfirmationGate, ToolContext } from './agent-tools';
import { argumentsHash } from './composer-confirmations.repository';
import { composerBlock, composerBlocksOf, composerCreateTools } from './composer-tools';

/** The confirmations table's rules, in memory (the repository itself runs against PostgreSQL in agents.int-spec). */
function memoryStore(): ConfirmationGate['store'] & { expireAll(): void } {
  const rows = new Map<string, { userId: number; tool: string; hash: string; used: boolean; expired: boolean }>();
  let n = 0;
  return {
    async issue(userId, tool, args) {
      const id = `cfm_test${++n}`;
      rows.set(id, { userId, tool, hash: argumentsHash(args), used: false, expired: false });
      return { id, expiresAt: new Date('2030-01-01T00:00:00Z') };
    },
    async consume(id, userId, tool, args) {
      const row = rows.get(id);
      if (!row || row.used || row.expired || row.userId !== userId || row.tool !== tool || row.hash !== argumentsHash(args)) return false;
      row.used = true;
      return true;
    },
    expireAll() {
      for (const row of rows.values()) row.expired = true;
    },
  };
}

function setup(role: 'user' | 'super_admin' = 'user') {
  const prompts: Record<string, unknown>[] = [];
  const tools = composerCreateTools({
    activities: {} as ActivitiesService,
    prompts: { create: async (_caller: unknown, body: Record<string, unknown>) => (prompts.push(body), { id: prompts.length, title: String(body['title']) }) } as unknown as PromptsService,
    createAgent: async () => ({ id: 1, name: 'a' }),
    createSquad: async () => ({ id: 1, name: 's' }),
  });
  const store = memoryStore();
  const previews: ComposerPreview[] = [];
  const created: { type: ComposerRecordType; id: number; name: string }[] = [];
  const ctx = (userMessage: string, allowed = true, userId = 3): ToolContext => ({ userId, role, confirmations: { allowed, userMessage, store }, previews, created });
  const createPrompt = (c: ToolContext, args: Record<string, unknown>) => tools.get('composer_create_prompt')!.run(c, args);
  return { prompts, store, previews, created, ctx, createPrompt };
}

describe('Composer create tools: a confirmation names the exact preview', () => {
  const args = { title: 'Invoice fields', type: 'extraction' };

  it('previews without creating, then creates once when the user’s message names the id and the arguments are the previewed ones', async () => {
    const s = setup();
    const preview = (await s.createPrompt(s.ctx('Make an invoice prompt'), args)) as { confirmation_id: string; created: boolean };
    expect(preview).toMatchObject({ created: false, confirmation_id: 'cfm_test1', preview: args });
    expect(s.prompts).toEqual([]);
    expect(s.previews).toEqual([{ type: 'prompt', confirmation_id: 'cfm_test1', expires_at: '2030-01-01T00:00:00.000Z', data: args }]);

    const withId = { ...args, confirmation_id: preview.confirmation_id };
    // A bare "yes" no longer arms anything: the message must name the previewed item.
    expect(await s.createPrompt(s.ctx('Yes, create it'), withId)).toMatchObject({ error: expect.stringContaining('does not name this confirmation_id') });
    // Other arguments than the previewed ones, another user, another tool: no.
    expect(await s.createPrompt(s.ctx(`Confirm ${preview.confirmation_id}`), { ...withId, title: 'Something else' })).toMatchObject({
      error: expect.stringContaining('not a preview of exactly these arguments'),
    });
    expect(await s.createPrompt(s.ctx(`Confirm ${preview.confirmation_id}`, true, 4), withId)).toMatchObject({ error: expect.stringContaining('not a preview') });
    expect(s.prompts).toEqual([]);

    expect(await s.createPrompt(s.ctx(`Confirm ${preview.confirmation_id}`), withId)).toEqual({ created: 'prompt', id: 1, name: 'Invoice fields' });
    // Used up: the same confirmation does not create twice.
    expect(await s.createPrompt(s.ctx(`Confirm ${preview.confirmation_id}`), withId)).toMatchObject({ error: expect.stringContaining('was used') });
    expect(s.prompts).toHaveLength(1);
  });

  it('refuses an expired confirmation and a key holder, who gets no preview either', async () => {
    const s = setup();
    const { confirmation_id } = (await s.createPrompt(s.ctx('Make it'), args)) as { confirmation_id: string };
    s.store.expireAll();
    expect(await s.createPrompt(s.ctx(`Confirm ${confirmation_id}`), { ...args, confirmation_id })).toMatchObject({ error: expect.stringContaining('expired') });
    expect(await s.createPrompt(s.ctx(`Confirm ${confirmation_id}`, false), args)).toMatchObject({ error: expect.stringContaining('only the signed-in owner') });
    expect(await s.createPrompt({ userId: 3 }, args)).toMatchObject({ error: expect.any(String) });
    expect(s.prompts).toEqual([]);
  });

  it('creates at the caller’s own level, whatever level the model asks for (a super administrator included)', async () => {
    const s = setup('super_admin');
    const asked = { ...args, level: 'system' };
    const { confirmation_id } = (await s.createPrompt(s.ctx('Make it'), asked)) as { confirmation_id: string };
    await s.createPrompt(s.ctx(`Go ahead with ${confirmation_id}`), { ...asked, confirmation_id });
    expect(s.prompts).toEqual([{ ...args, level: 'user' }]);
  });

  it('hashes arguments without regard to key order', () => {
    expect(argumentsHash({ a: 1, b: { c: [1, { d: 2, e: 3 }] } })).toBe(argumentsHash({ b: { c: [1, { e: 3, d: 2 }] }, a: 1 }));
    expect(argumentsHash({ a: 1 })).not.toBe(argumentsHash({ a: '1' }));
  });
});

describe('composerBlock', () => {
  it('writes a :::composer_block marker with the type and its data as JSON', () => {
    expect(composerBlock('creation_result', { created: [{ type: 'workflow', id: 3, name: 'Hello' }] })).toBe(
      ':::composer_block creation_result\n{"created":[{"type":"workflow","id":3,"name":"Hello"}]}\n:::',
    );
  });

  it('ends a turn with its previews, then what it created', () => {
    const blocks = composerBlocksOf([{ type: 'agent', confirmation_id: 'cfm_1', expires_at: 'x', data: { name: 'A' } }], [{ type: 'prompt', id: 2, name: 'P' }]);
    expect(blocks).toBe(
      ':::composer_block agent_preview\n{"tool":"composer_create_agent","confirmation_id":"cfm_1","expires_at":"x","data":{"name":"A"}}\n:::\n\n:::composer_block creation_result\n{"created":[{"type":"prompt","id":2,"name":"P","path":"/prompts?prompt=2"}]}\n:::',
    );
  });
});

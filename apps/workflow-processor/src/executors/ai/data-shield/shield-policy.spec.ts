import type { ExtractCall, ExtractResult, LlmClient } from '@docflow/llm-client';
import { LlmServiceError } from '@docflow/llm-client';
import { silentLogger } from '@docflow/service-kit';
import { buildGraph, buildScope, type WorkflowDefinition } from '@docflow/workflow';
import { chain, definition, endNode, startNode, taskNode } from '../../../test-support/definitions';
import type { CompletedOutcome, NodeContext } from '../../executor';
import { buildAiExecutors } from '../ai-executors';
import { findPolicyViolation, nodeShielding, parseShieldPolicy } from './shield-policy';

describe('data_shield_policy', () => {
  it('reads required and enabled policies, and nothing else as a policy', () => {
    expect(parseShieldPolicy({ required: true, entity_types: ['email', 'PERSON'] })).toEqual({ required: true, enabled: true, entityTypes: ['EMAIL', 'PERSON'] });
    expect(parseShieldPolicy({ mode: 'enforce' })).toEqual({ required: true, enabled: true });
    expect(parseShieldPolicy({ enabled: true })).toEqual({ required: false, enabled: true });
    expect(parseShieldPolicy({})).toBeUndefined();
    expect(parseShieldPolicy(null)).toBeUndefined();
  });

  it('decides each node: its own setting, else the policy; an opt-out under a required policy is a violation', () => {
    expect(nodeShielding({}, undefined)).toEqual({ enabled: false, required: false });
    expect(nodeShielding({ data_shield: true }, undefined)).toEqual({ enabled: true, required: false });
    expect(nodeShielding({ data_shield: { enabled: true, entity_types: ['EMAIL'] } }, undefined)).toEqual({ enabled: true, required: false, entityTypes: ['EMAIL'] });
    expect(nodeShielding({}, { required: true, enabled: true })).toEqual({ enabled: true, required: true });
    expect(nodeShielding({ data_shield: false }, { required: false, enabled: true })).toEqual({ enabled: false, required: false });
    expect(nodeShielding({ data_shield: { enabled: false } }, { required: true, enabled: true })).toEqual({ violation: 'its config sets data_shield to false' });
  });

  it('finds the node that would go unshielded before anything runs', () => {
    const graph = (nodes: ReturnType<typeof taskNode>[]) =>
      buildGraph(definition([startNode(), ...nodes, endNode()], chain('start', ...nodes.map((n) => n.id), 'end')) as unknown as WorkflowDefinition);
    const required = { required: true, enabled: true };
    expect(findPolicyViolation(graph([taskNode('sum', 'summarization_task'), taskNode('ext', 'extraction_task', { data_shield: false })]), required)).toEqual({
      nodeId: 'ext',
      message: "DATA_SHIELD_POLICY_VIOLATION: node ext would send text to an LLM unshielded (its config sets data_shield to false), but the activity's data_shield_policy requires Data Shield",
    });
    expect(findPolicyViolation(graph([taskNode('rag', 'rag_query_task')]), required)?.nodeId).toBe('rag');
    expect(findPolicyViolation(graph([taskNode('ext', 'extraction_task', { data_shield: false })]), { required: false, enabled: true })).toBeUndefined();
    expect(findPolicyViolation(graph([taskNode('sum', 'summarization_task')]), required)).toBeUndefined();
  });
});

describe('AI executors under Data Shield', () => {
  function setup(answer: (req: ExtractCall) => ExtractResult | Error) {
    const calls: ExtractCall[] = [];
    const llm: LlmClient = {
      async extract(req) {
        calls.push(req);
        const a = answer(req);
        if (a instanceof Error) throw a;
        return a;
      },
      chat: () => Promise.reject(new Error('unused')),
      embeddings: () => Promise.reject(new Error('unused')),
      close: () => undefined,
    };
    const content = { documentText: () => Promise.reject(new Error('unused')), visiblePrompts: async () => [], prompt: () => Promise.reject(new Error('unused')), close: () => undefined };
    return { executors: buildAiExecutors({ llm, content: content as never, documentOrigins: [] }), calls };
  }

  const ctx = (config: Record<string, unknown>, policy?: NodeContext['dataShieldPolicy']): NodeContext => ({
    executionKey: 'execution:1',
    jobId: 'wf_1',
    executionId: 1,
    runUserId: 42,
    nodeId: 'sum',
    nodeType: 'task',
    taskType: 'summarization_task',
    label: 'Summary',
    config,
    rawConfig: config,
    scope: buildScope({ inputs: {}, outputs: {}, context: { user_id: 42, execution_id: 1 } }),
    inputs: {},
    signal: new AbortController().signal,
    logger: silentLogger,
    ...(policy ? { dataShieldPolicy: policy } : {}),
  });

  const diagnostics = { shielded: true as const, messages: [{ role: 'user', content: 'Mail EMAIL_1a2b3c4d' }], entity_counts: { EMAIL: 1 }, layers: ['L1'] };

  it('asks the LLM service to shield for the run’s user and keeps the tokenised prompt in _prompt_diagnostics', async () => {
    const { executors, calls } = setup(() => ({
      content: 'A summary.',
      model: 'm',
      provider: 'openai',
      cost: 0,
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      data_shield: diagnostics,
    }));
    const out = (await executors.summarization_task(ctx({ text: 'Mail jane@example.com' }, { required: true, enabled: true, entityTypes: ['EMAIL'] }))) as CompletedOutcome & {
      output: Record<string, unknown>;
    };
    expect(calls[0]!.data_shield).toEqual({ enabled: true, required: true, entity_types: ['EMAIL'], tenant: '42', actor_user_id: 42, entry_point: 'summarization' });
    expect(out.output['_prompt_diagnostics']).toEqual({ shielded: true, calls: [diagnostics] });
  });

  it('sends unshielded calls as before, without diagnostics', async () => {
    const { executors, calls } = setup(() => ({ content: 'A summary.', model: 'm', provider: 'openai', cost: 0, usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
    const out = (await executors.summarization_task(ctx({ text: 'Mail jane@example.com' }))) as CompletedOutcome & { output: Record<string, unknown> };
    expect(calls[0]!.data_shield).toBeUndefined();
    expect(out.output['_prompt_diagnostics']).toBeUndefined();
  });

  it('fails the node with DATA_SHIELD_POLICY_VIOLATION when the LLM service cannot shield a required call', async () => {
    const { executors } = setup(() => new LlmServiceError('llm-service', 'data_shield_policy_violation', 'DATA_SHIELD_POLICY_VIOLATION: Data Shield is disabled', { status: 403 }));
    await expect(executors.summarization_task(ctx({ text: 'x' }, { required: true, enabled: true }))).rejects.toMatchObject({
      errorType: 'policy_violation',
      message: expect.stringMatching(/^DATA_SHIELD_POLICY_VIOLATION/),
    });
  });

  it('refuses an opt-out under a required policy without calling the LLM service', async () => {
    const { executors, calls } = setup(() => new Error('must not be called'));
    await expect(executors.summarization_task(ctx({ text: 'x', data_shield: false }, { required: true, enabled: true }))).rejects.toMatchObject({ errorType: 'policy_violation' });
    expect(calls).toHaveLength(0);
  });
});

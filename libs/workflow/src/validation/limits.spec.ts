import { DEFAULT_WORKFLOW_LIMITS, type WorkflowLimits } from '../limits';
import { validateDefinition } from './validate-definition';

type Json = Record<string, unknown>;

const node = (id: string, type: string, data: Json = {}): Json => ({ id, type, position: { x: 0, y: 0 }, data });
const task = (id: string, taskType: string, config: Json = {}): Json => node(id, 'task', { label: id, task_type: taskType, config });
const edge = (source: string, target: string): Json => ({ id: `${source}->${target}`, source, target });
const rest = (id: string, extra: Json = {}) => task(id, 'rest_api_task', { url: 'https://api.example.test/x', ...extra });
const wait = (id: string, extra: Json = {}) => task(id, 'wait_task', { endpoint: 'https://api.example.test/s', watch_field: 'state', ...extra });
const mail = (id: string, extra: Json = {}) => task(id, 'email_send_task', { to: ['a@x.io'], subject: 's', body: 'b', ...extra });
const limits = (patch: Partial<WorkflowLimits>): WorkflowLimits => ({ ...DEFAULT_WORKFLOW_LIMITS, ...patch });

describe('validateDefinition: documented limits (issue #13)', () => {
  it('has the documented defaults', () => {
    expect(DEFAULT_WORKFLOW_LIMITS).toEqual({
      maxNodes: 200,
      maxFanOut: 20,
      maxEmailNodes: 10,
      maxRecipientsPerEmail: 50,
      minPollIntervalSeconds: 1,
      maxWaitTimeoutSeconds: 3600,
      maxRestTimeoutSeconds: 300,
    });
  });

  it('refuses more nodes than allowed, without looking at each of them', () => {
    const nodes = Array.from({ length: 201 }, (_, i) => task(`n${i}`, 'no_such_type'));
    expect(validateDefinition({ nodes, edges: [] })).toEqual(['Workflow has 201 nodes; at most 200 are allowed']);
    expect(validateDefinition({ nodes: nodes.slice(0, 3).map((_, i) => rest(`r${i}`)), edges: [] }, limits({ maxNodes: 2 }))).toEqual(['Workflow has 3 nodes; at most 2 are allowed']);
    expect(validateDefinition({ nodes: [rest('a'), rest('b')], edges: [] }, limits({ maxNodes: 2 }))).toEqual([]);
  });

  it('refuses more edges than five per allowed node', () => {
    const edges = Array.from({ length: 11 }, (_, i) => ({ id: `e${i}`, source: 'a', target: 'b' }));
    expect(validateDefinition({ nodes: [rest('a'), rest('b')], edges }, limits({ maxNodes: 2, maxFanOut: 100 }))).toEqual(['Workflow has 11 edges; at most 10 are allowed']);
  });

  it('refuses a node that fans out to more nodes than allowed', () => {
    const targets = Array.from({ length: 4 }, (_, i) => rest(`t${i}`));
    const def = { nodes: [node('start', 'start'), ...targets], edges: targets.map((t) => edge('start', t['id'] as string)) };
    expect(validateDefinition(def, limits({ maxFanOut: 3 }))).toEqual(['Node start has 4 outgoing edges; at most 3 are allowed']);
    expect(validateDefinition(def, limits({ maxFanOut: 4 }))).toEqual([]);
  });

  it('bounds wait_task polling and timeouts of wait_task and rest_api_task', () => {
    const def = { nodes: [wait('w', { poll_interval: 0.001, timeout: 3601 }), rest('r', { timeout: 301 })], edges: [] };
    expect(validateDefinition(def)).toEqual([
      'Node w (wait_task): config.poll_interval must be at least 1 seconds',
      'Node w (wait_task): config.timeout must be at most 3600 seconds',
      'Node r (rest_api_task): config.timeout must be at most 300 seconds',
    ]);
    const ok = { nodes: [wait('w', { poll_interval: 1, timeout: 3600 }), rest('r', { timeout: 300 })], edges: [] };
    expect(validateDefinition(ok)).toEqual([]);
    // Templated values are checked when the run resolves them.
    expect(validateDefinition({ nodes: [wait('w', { poll_interval: '{{every}}' })], edges: [] })).toEqual([]);
    expect(validateDefinition({ nodes: [wait('w', { poll_interval: 0.05 })], edges: [] }, limits({ minPollIntervalSeconds: 0.05 }))).toEqual([]);
  });

  it('bounds recipients per e-mail and e-mail nodes per workflow', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.io`);
    const def = { nodes: [mail('m', { to: many(30), cc: many(15), bcc: many(6) })], edges: [] };
    expect(validateDefinition(def)).toEqual(['Node m (email_send_task): config.to, cc and bcc name 51 recipients; at most 50 are allowed']);
    expect(validateDefinition({ nodes: [mail('m', { to: many(30), cc: '{{more}}' })], edges: [] })).toEqual([]);
    const mails = Array.from({ length: 3 }, (_, i) => mail(`m${i}`));
    expect(validateDefinition({ nodes: mails, edges: [] }, limits({ maxEmailNodes: 2 }))).toEqual(['Workflow has 3 email_send_task nodes; at most 2 are allowed']);
  });
});

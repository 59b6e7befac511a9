import { httpRequest } from './lean-http';

/**
 * A small client of the public API's workflow routes (spec 4.6–4.8) and
 * builders of workflow definitions (spec 2.6), for end-to-end tests and
 * benchmarks. Every call goes over HTTP to a running public API.
 */

export interface ApiResponse<T = unknown> {
  status: number;
  body: T;
}

export interface ErrorBody {
  error: { status: number; name: string; message: string; details?: { errors?: string[] } & Record<string, unknown> };
}

export interface TaskStateView {
  status: string;
  error?: string | null;
  error_type?: string | null;
  result?: unknown;
  [key: string]: unknown;
}

/** `data` of GET /workflow-executions/{id}/status. */
export interface ExecutionStatusView {
  id: number;
  status: string;
  task_states: Record<string, TaskStateView>;
  outputs: Record<string, Record<string, unknown>> | null;
  awaiting_node: string | null;
  correlation_token: string | null;
  awaiting_input_schema: Record<string, unknown> | null;
  awaiting_since: string | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  error_type: string | null;
  failed_node: string | null;
}

export interface TimelineEntryView {
  node_id: string;
  step_name: string;
  step_type: string | null;
  status: string;
  started_at: string | null;
  completed_at: string | null;
  duration_seconds: number | null;
  cost: number | null;
  result_summary: string | null;
  error: string | null;
}

/** `data` of GET /workflow-executions/{id}/timeline. */
export interface TimelineView {
  execution_id: number;
  status: string;
  total_duration_seconds: number | null;
  timeline: TimelineEntryView[];
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
}

/** Body of POST /workflow-executions/{id}/execute. */
export interface StartView {
  success: boolean;
  message: string;
  execution_id: number;
  job_id: string;
}

export const TERMINAL = ['completed', 'failed', 'cancelled'] as const;
/** Where polling stops: terminal, or paused for the user (spec 3.1). */
export const SETTLED = [...TERMINAL, 'awaiting_user_input'] as const;

function answerText(method: string, path: string, res: ApiResponse): string {
  return `${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`;
}

export class WorkflowApi {
  constructor(
    readonly baseUrl: string,
    readonly jwt?: string,
  ) {}

  /** Logs in through POST /auth/local and returns a client that sends the JWT. */
  static async login(baseUrl: string, identifier: string, password: string): Promise<WorkflowApi> {
    const anonymous = new WorkflowApi(baseUrl);
    const res = await anonymous.request<{ jwt: string }>('POST', '/auth/local', { identifier, password });
    if (res.status !== 200) throw new Error(answerText('POST', '/auth/local', res));
    return new WorkflowApi(baseUrl, res.body.jwt);
  }

  /** Any request; the body is parsed as JSON when there is one. Never throws on an HTTP status. */
  async request<T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const res = await httpRequest(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(this.jwt ? { authorization: `Bearer ${this.jwt}` } : {}),
        ...headers,
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      timeoutMs: 15000,
    });
    const text = res.text;
    let parsed: unknown = text;
    if (text !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, body: parsed as T };
  }

  /** The request's body when the status is `expected`; throws with the whole answer otherwise. */
  async expect<T>(expected: number, method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request<T>(method, path, body);
    if (res.status !== expected) throw new Error(answerText(method, path, res));
    return res.body;
  }

  async me(): Promise<{ id: number; username: string }> {
    return this.expect(200, 'GET', '/users/me');
  }

  /** POST /activities; returns the new id. */
  async createActivity(fields: Record<string, unknown>): Promise<number> {
    return (await this.expect<{ data: { id: number } }>(201, 'POST', '/activities', { data: fields })).data.id;
  }

  async validate(definition: unknown): Promise<{ valid: boolean; errors: string[] }> {
    return (await this.expect<{ data: { valid: boolean; errors: string[] } }>(200, 'POST', '/workflows/validate', { workflow_definition: definition })).data;
  }

  /** POST /workflow-executions; returns the new (queued) execution's id. */
  async createExecution(activity: number, inputs?: Record<string, unknown>): Promise<number> {
    const body = { data: { activity, ...(inputs ? { inputs } : {}) } };
    return (await this.expect<{ data: { id: number } }>(201, 'POST', '/workflow-executions', body)).data.id;
  }

  /** POST /workflow-executions/{id}/execute. */
  async execute(id: number, inputs?: Record<string, unknown>): Promise<StartView> {
    return this.expect<StartView>(200, 'POST', `/workflow-executions/${id}/execute`, inputs ? { inputs } : {});
  }

  /** Create, then execute; returns the execution id. */
  async start(activity: number, inputs: Record<string, unknown>): Promise<number> {
    const id = await this.createExecution(activity, inputs);
    await this.execute(id);
    return id;
  }

  /** With `waitSeconds`, a long poll: it answers once the execution settles or the wait runs out. */
  async status(id: number, waitSeconds?: number): Promise<ExecutionStatusView> {
    const query = waitSeconds === undefined ? '' : `?wait=${waitSeconds}`;
    return (await this.expect<{ data: ExecutionStatusView }>(200, 'GET', `/workflow-executions/${id}/status${query}`)).data;
  }

  async timeline(id: number): Promise<TimelineView> {
    return (await this.expect<{ data: TimelineView }>(200, 'GET', `/workflow-executions/${id}/timeline`)).data;
  }

  /**
   * Polls GET /workflow-executions/{id}/status until the status is one of
   * `until` (default: terminal or awaiting input); throws after `timeoutMs`
   * naming the last status seen.
   */
  async waitFor(id: number, options: { until?: readonly string[]; timeoutMs?: number; pollMs?: number } = {}): Promise<ExecutionStatusView> {
    const until = options.until ?? SETTLED;
    const deadline = Date.now() + (options.timeoutMs ?? 20000);
    let last: ExecutionStatusView | undefined;
    while (Date.now() < deadline) {
      last = await this.status(id);
      if (until.includes(last.status)) return last;
      await new Promise((r) => setTimeout(r, options.pollMs ?? 50));
    }
    throw new Error(`execution ${id} did not reach ${until.join('/')} within ${options.timeoutMs ?? 20000} ms; last: ${JSON.stringify(last)}`);
  }

  /** Start and wait until settled. */
  async run(activity: number, inputs: Record<string, unknown>, timeoutMs = 20000): Promise<ExecutionStatusView> {
    return this.waitFor(await this.start(activity, inputs), { timeoutMs });
  }
}

// Definition builders (spec 2.6): processors run `type: task` nodes by data.task_type.

export interface NodeDef {
  id: string;
  type: string;
  position: { x: number; y: number };
  data: { label: string; task_type: string; config: Record<string, unknown> };
}

export interface EdgeDef {
  id: string;
  source: string;
  target: string;
  label?: string;
}

let x = 0;
const position = () => ({ x: (x += 200), y: 100 });

export function startNode(id = 'start'): NodeDef {
  return { id, type: 'start', position: position(), data: { label: 'Start', task_type: 'custom_task', config: {} } };
}

export function endNode(id = 'end', label = 'End'): NodeDef {
  return { id, type: 'end', position: position(), data: { label, task_type: 'custom_task', config: {} } };
}

export function taskNode(id: string, taskType: string, config: Record<string, unknown>, label = `Step ${id}`): NodeDef {
  return { id, type: 'task', position: position(), data: { label, task_type: taskType, config } };
}

export function edge(source: string, target: string, label?: string): EdgeDef {
  return { id: `${source}-${target}`, source, target, ...(label !== undefined ? { label } : {}) };
}

/** Edges through `ids` in order. */
export function chain(...ids: string[]): EdgeDef[] {
  return ids.slice(1).map((id, i) => edge(ids[i]!, id));
}

/** `{type: object, properties, required}` with every listed property required. */
export function objectSchema(properties: Record<string, Record<string, unknown>>, required = Object.keys(properties)): Record<string, unknown> {
  return { type: 'object', properties, required };
}

export function definition(nodes: NodeDef[], edges: EdgeDef[], inputSchema: Record<string, unknown> = objectSchema({})): Record<string, unknown> {
  return { nodes, edges, input_schema: inputSchema };
}

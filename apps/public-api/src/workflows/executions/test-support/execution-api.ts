import request from 'supertest';
import type express from 'express';
import type { ResultMessage } from '@docflow/contracts';
import type { Actor } from './actors';
import { sampleDefinition } from './actors';

export const ROUTER_KEY = 'test-router-key-0123456789abcdef';
export const SERVICE_KEY = 'test-service-key-0123456789abcdef';
export const INTERNAL_SECRET = 'test-internal-secret-0123456789abcdef';

/** Config overrides for an app whose router is `routerUrl`. */
export function executionEnv(routerUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ROUTER_URL: routerUrl, ROUTER_API_KEY: ROUTER_KEY, SERVICE_KEY, INTERNAL_SERVICE_JWT_SECRET: INTERNAL_SECRET, ...extra };
}

export interface ErrorBody {
  error: { status: number; name: string; message: string; details: { errors?: string[]; [key: string]: unknown } };
}

/** Thin helpers over the HTTP API that assert the happy status. */
export class ExecutionApi {
  constructor(readonly app: express.Express) {}

  async createActivity(actor: Actor, definition: Record<string, unknown> = sampleDefinition(), extra: Record<string, unknown> = {}): Promise<number> {
    const res = await request(this.app)
      .post('/api/activities')
      .set('Authorization', actor.auth)
      .send({ data: { name: 'Flow', workflow_definition: definition, ...extra } });
    if (res.status !== 201) throw new Error(`activity not created: ${res.status} ${res.text}`);
    return (res.body as { data: { id: number } }).data.id;
  }

  async createExecution(actor: Actor, activityId: number, data: Record<string, unknown> = {}): Promise<number> {
    const res = await request(this.app)
      .post('/api/workflow-executions')
      .set('Authorization', actor.auth)
      .send({ data: { activity: activityId, ...data } });
    if (res.status !== 201) throw new Error(`execution not created: ${res.status} ${res.text}`);
    return (res.body as { data: { id: number } }).data.id;
  }

  execute(actor: Actor, id: number, body: Record<string, unknown> = { inputs: { document_url: 'https://files.example/a.pdf' } }): request.Test {
    return request(this.app).post(`/api/workflow-executions/${id}/execute`).set('Authorization', actor.auth).send(body);
  }

  /** A started execution of a fresh activity of `actor`. */
  async started(actor: Actor, definition?: Record<string, unknown>): Promise<number> {
    const id = await this.createExecution(actor, await this.createActivity(actor, definition));
    const res = await this.execute(actor, id);
    if (res.status !== 200) throw new Error(`execution not started: ${res.status} ${res.text}`);
    return id;
  }

  /** PUT /workflow-executions/internal/{id}/results with the service key. */
  postResult(id: number, msg: Partial<ResultMessage>): request.Test {
    return request(this.app).put(`/api/workflow-executions/internal/${id}/results`).set('X-Service-Key', SERVICE_KEY).send(msg);
  }

  status(actor: Actor, id: number): request.Test {
    return request(this.app).get(`/api/workflow-executions/${id}/status`).set('Authorization', actor.auth);
  }

  resume(actor: Actor, id: number, body: Record<string, unknown>): request.Test {
    return request(this.app).post(`/api/workflow-executions/${id}/resume`).set('Authorization', actor.auth).send(body);
  }
}

/** The schema a user_input node waits with in these tests. */
export const APPROVAL_SCHEMA = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, comment: { type: 'string' } },
  required: ['approved'],
  additionalProperties: false,
};

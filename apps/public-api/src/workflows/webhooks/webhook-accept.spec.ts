import { AppError, type Logger } from '@docflow/service-kit';
import type { ActivitiesRepository } from '../activities/activities.repository';
import type { Caller } from '../activities/activities.service';
import type { AuditLog } from '../../identity';
import type { WorkflowExecutionsRepository } from '../executions/workflow-executions.repository';
import type { WorkflowExecutionsService } from '../executions/workflow-executions.service';
import { type AcceptLimits, type CachedWebhook, QUOTA_FIGURE_TTL_MS, WebhookAcceptor } from './webhook-accept';
import type { AcceptGroup, AcceptGroupResult, WebhookAcceptRepository } from './webhook-accept.repository';
import type { WebhookEntity } from './webhook.entity';

const logger = { warn: jest.fn(), info: jest.fn(), error: jest.fn(), debug: jest.fn(), child: () => logger } as unknown as Logger;
const limits: AcceptLimits = { perMinute: 100, maxRunning: 10, executionsMonthly: 2 };
const cached: CachedWebhook = {
  webhook: { id: 7 } as WebhookEntity,
  webhookVersion: 'w',
  activityVersion: 'a',
  owner: { id: 3, role: 'user' } as Caller,
  activityId: 11,
  definitionJson: '{}',
  inputSchema: { type: 'object', properties: {} },
};

function result(over: Partial<AcceptGroupResult>): AcceptGroupResult {
  return { ok: true, count: 1, retryAfterSeconds: 60, room: 1, running: 0, quotaLimit: 2, quotaUsed: 0, ids: [], ...over };
}

function acceptor(answers: AcceptGroupResult[]) {
  let clock = Date.parse('2026-11-27T08:00:00Z');
  const batches: AcceptGroup[][] = [];
  const audit = { record: jest.fn() };
  const store = {
    acceptBatch: jest.fn((groups: AcceptGroup[]) => {
      batches.push(groups);
      const answer = answers.shift();
      if (!answer) throw new Error('no answer left');
      return Promise.resolve([answer]);
    }),
  };
  const hooks = new WebhookAcceptor({
    store: store as unknown as WebhookAcceptRepository,
    repo: { findById: () => Promise.resolve(null) },
    activities: {} as ActivitiesRepository,
    executions: { startAccepted: jest.fn(() => Promise.resolve()) } as unknown as WorkflowExecutionsService,
    executionsRepo: {} as WorkflowExecutionsRepository,
    audit: audit as unknown as AuditLog,
    logger,
    jwtSecret: 'x'.repeat(32),
    now: () => new Date(clock),
  });
  return { hooks, batches, audit, advance: (ms: number) => (clock += ms) };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
}

describe('WebhookAcceptor and the monthly executions quota', () => {
  it("sends the period and the configured quota with the batch, and answers a used-up quota's 429 (quota_exceeded, audited) at the trigger", async () => {
    const { hooks, batches, audit } = acceptor([result({ quotaUsed: 2 })]);
    const err = await refusal(hooks.accept(cached, {}, limits));
    expect(batches[0]![0]).toMatchObject({ period: '2026-11-01', executionsMonthly: 2, ownerId: 3 });
    expect(err.status).toBe(429);
    expect(err.details).toMatchObject({ code: 'quota_exceeded', quota: 'executions', used: 2, limit: 2, resets_at: '2026-12-01T00:00:00.000Z' });
    expect(audit.record).toHaveBeenCalledWith({ action: 'quota.exceeded', actorUserId: 3, details: { quota: 'executions', used: 2, limit: 2, period: '2026-11-01' } });
  });

  it('refuses the owner without a batch while the figure is fresh, and asks a batch again once it is older than its TTL', async () => {
    const { hooks, batches, advance } = acceptor([result({ quotaUsed: 2 }), result({ quotaLimit: 5, quotaUsed: 2, ids: [41] }), result({ quotaLimit: 5, quotaUsed: 3, ids: [42] })]);
    await refusal(hooks.accept(cached, {}, limits));
    advance(QUOTA_FIGURE_TTL_MS - 1);
    expect((await refusal(hooks.accept(cached, {}, limits))).details).toMatchObject({ code: 'quota_exceeded', used: 2, limit: 2 });
    expect(batches).toHaveLength(1);
    advance(1);
    // Raised to 5 meanwhile (an override): the batch reads it, admits, and the figure (3 of 5) refuses nothing.
    await expect(hooks.accept(cached, {}, limits)).resolves.toMatchObject({ outcome: 'accepted', response: { execution_id: 41 } });
    await expect(hooks.accept(cached, {}, limits)).resolves.toMatchObject({ outcome: 'accepted', response: { execution_id: 42 } });
    expect(batches).toHaveLength(3);
  });

  it('answers the rate limit before the quota, and the quota before the running cap', async () => {
    const { hooks } = acceptor([result({ room: 0, count: 101 }), result({ quotaUsed: 2, running: 10 })]);
    expect((await refusal(hooks.accept(cached, {}, limits))).details).toMatchObject({ limit: 100, window_seconds: 60 });
    expect((await refusal(hooks.accept(cached, {}, limits))).details).toMatchObject({ code: 'quota_exceeded' });
  });

  it('keeps no figure for an owner without a quota', async () => {
    const { hooks, batches } = acceptor([result({ quotaLimit: null, running: 10 }), result({ quotaLimit: null, ids: [43] })]);
    expect((await refusal(hooks.accept(cached, {}, { ...limits, executionsMonthly: null }))).details).toMatchObject({ limit: 10, running: 10 });
    await expect(hooks.accept(cached, {}, { ...limits, executionsMonthly: null })).resolves.toMatchObject({ outcome: 'accepted' });
    expect(batches).toHaveLength(2);
  });
});

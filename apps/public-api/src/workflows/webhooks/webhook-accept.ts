import { workflowJobId } from '@docflow/contracts';
import { GroupCommit, type ItemOutcome } from '@docflow/persistence';
import { AppError, errorMessage, type Logger, TooManyRequestsError } from '@docflow/service-kit';
import { validateInputs, type WorkflowDefinition } from '@docflow/workflow';
import type { ActivitiesRepository } from '../activities/activities.repository';
import { canRead, type Caller } from '../activities/activities.service';
import { type AuditLog, periodOf, quotaExceededError } from '../../identity';
import { tooManyRequests } from '../../platform';
import { signPollingToken } from '../executions/polling-token';
import type { WorkflowExecutionsRepository } from '../executions/workflow-executions.repository';
import type { WebhookAcceptRepository } from './webhook-accept.repository';
import { checkedDefinition, type WorkflowExecutionsService } from '../executions/workflow-executions.service';
import type { WebhookEntity } from './webhook.entity';
import type { TriggerResponse } from './webhooks.service';

/** Triggers committed together at most (one transaction, one multi-row INSERT). */
const ACCEPT_BATCH_MAX = 128;
/**
 * Accepted executions being started at once by one process (the rest wait their turn in memory; their rows are
 * durable). Starts are let in by waves at the end of a turn (see schedulePump), so that a wave shares the starts'
 * grouped statements (quota take, startQueued, router submission). 64 at once was tried: on the loaded machine more
 * starts at once took the event loop and the database from the answers (fewer accepted/s than main, alternated).
 */
const START_CONCURRENCY = 16;
/** A pending start older than this is taken by the sweep of any process (its own process may have died). */
const SWEEP_AFTER_SECONDS = 30;
/** How often the workers role sweeps pending starts. */
export const WEBHOOK_START_SWEEP_INTERVAL_MS = 5000;
const SWEEP_LIMIT = 500;
/**
 * A webhook execution started this long ago with no result since has its job submitted again by the sweep
 * (its process may have died between the start's commit and the router submission). Longer than a pending
 * start's wait, since a job merely waiting on a long queue gets sent twice (one effect, but a wasted delivery).
 */
const RESUBMIT_AFTER_SECONDS = 60;
const RESUBMIT_LIMIT = 100;
/** Webhooks cached per process at most (all are forgotten when it is full). */
const CACHE_MAX = 10_000;
/**
 * How long an owner's monthly quota, found used up by a batch, refuses that owner's triggers in this process
 * without a batch; the next trigger after it goes to a batch, which reads the quota again (so a raised quota, or
 * a pending start given back, is seen within this time).
 */
export const QUOTA_FIGURE_TTL_MS = 1000;

/**
 * What a trigger's fast path needs of a webhook, read once and used until it
 * changes. The versions are digests of the columns the checks read (webhook
 * and activity), read before their data; every batch re-reads them under the webhook's row lock
 * and gives the triggers of a webhook whose version moved (PUT, regenerate,
 * delete, a changed activity, a blocked owner) back to the full path, so a
 * change is in force for every trigger committed after it.
 */
export interface CachedWebhook {
  webhook: WebhookEntity;
  webhookVersion: string;
  activityVersion: string;
  owner: Caller;
  activityId: number;
  /** The normalised, validated definition snapshot every execution of this webhook stores. */
  definitionJson: string;
  inputSchema: unknown;
}

/** The limits a trigger is admitted under (configuration). */
export interface AcceptLimits {
  /** WEBHOOK_TRIGGERS_PER_MINUTE. */
  perMinute: number;
  /** WEBHOOK_MAX_RUNNING_EXECUTIONS_PER_USER. */
  maxRunning: number;
  /** EXECUTION_QUOTA_MONTHLY or null (none); an owner's override replaces it. */
  executionsMonthly: number | null;
}

interface AcceptItem extends AcceptLimits {
  cached: CachedWebhook;
  inputs: Record<string, unknown>;
}

/** An owner's monthly executions quota as the last batch of this process found it (see QUOTA_FIGURE_TTL_MS). */
interface QuotaFigure {
  period: string;
  limit: number;
  /** Started this month plus accepted not yet started, after that batch. */
  used: number;
  at: number;
  /** Whether a refusal by this figure was audited (`quota.exceeded`): once per figure, not once per refused trigger. */
  audited: boolean;
}

/** A webhook being loaded, and once loaded, its value (read synchronously by the request lane: cachedNow). */
interface CacheEntry {
  loading: Promise<CachedWebhook | undefined>;
  value?: CachedWebhook;
}

export type AcceptOutcome = { outcome: 'accepted'; response: TriggerResponse } | { outcome: 'stale' };

export interface WebhookAcceptorDeps {
  store: WebhookAcceptRepository;
  repo: { findById(id: number): Promise<WebhookEntity | null> };
  activities: ActivitiesRepository;
  executions: WorkflowExecutionsService;
  executionsRepo: WorkflowExecutionsRepository;
  audit: AuditLog;
  logger: Logger;
  jwtSecret: string;
  now?: () => Date;
}

/**
 * Webhook triggers without files (issue #16 item 6; docs/decisions.md,
 * "Webhook triggers accepted before their start"): the webhook, its owner
 * and its activity's checked definition come from a cache; concurrent
 * triggers are committed together (GroupCommit: the rate limit and running
 * cap counted, the executions inserted `queued` with `start_pending`, the
 * webhook's count raised, one transaction); the answer follows the commit,
 * and the start follows the answer. A start that fails for a reason that
 * passes (router or database down, the cap reached by starts by hand) is
 * tried again; the sweep starts what a dead process left.
 */
export class WebhookAcceptor {
  private readonly cache = new Map<number, CacheEntry>();
  private readonly accepts: GroupCommit<AcceptItem, AcceptOutcome>;
  private readonly waiting: { id: number; owner: Caller }[] = [];
  private readonly tracked = new Set<number>();
  private inFlight = 0;
  private pumpScheduled = false;
  /** Per owner: the monthly quota figure of the last batch (docs/decisions.md, "Webhook triggers: the monthly quota at the trigger"). */
  private readonly quotaFigures = new Map<number, QuotaFigure>();
  private readonly now: () => Date;

  constructor(private readonly deps: WebhookAcceptorDeps) {
    this.now = deps.now ?? (() => new Date());
    this.accepts = new GroupCommit((batch) => this.commit(batch), { maxItems: ACCEPT_BATCH_MAX, lingerMs: 0 });
  }

  /** Forgets a webhook (its PUT, regenerate and delete in this process; other processes see the version move). */
  invalidate(id: number): void {
    this.cache.delete(id);
  }

  /** The webhook as the fast path may use it, or undefined when only the full path can answer (unknown, files-only checks, unusable definition...). */
  async lookup(id: number): Promise<CachedWebhook | undefined> {
    let entry = this.cache.get(id);
    if (!entry) {
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      const loading: CacheEntry = {
        loading: this.load(id).then(
          (value) => {
            // An entry dropped meanwhile (invalidate, a full cache) is no longer in the map: its value reaches no one.
            loading.value = value;
            return value;
          },
          (err: unknown) => {
            if (this.cache.get(id) === loading) this.cache.delete(id);
            throw err;
          },
        ),
      };
      entry = loading;
      this.cache.set(id, entry);
    }
    const cached = await entry.loading;
    if (!cached && this.cache.get(id) === entry) this.cache.delete(id);
    return cached;
  }

  /** The webhook as lookup would give it, when this process has it loaded already; undefined otherwise (nothing is read). */
  cachedNow(id: number): CachedWebhook | undefined {
    return this.cache.get(id)?.value;
  }

  private async load(id: number): Promise<CachedWebhook | undefined> {
    // Versions first: data read after them is at least as new, so a change in between shows as a moved version.
    const versions = await this.deps.store.versions([id]);
    const v = versions.get(id);
    if (!v || v.av === null || v.blocked) return undefined;
    const webhook = await this.deps.repo.findById(id);
    if (!webhook) return undefined;
    const owner: Caller = { id: webhook.ownerId, role: v.role } as Caller;
    const activity = await this.deps.activities.findForExecution(webhook.activityId);
    if (!activity || !canRead(owner, activity)) return undefined;
    // The checks of WorkflowExecutionsService.create; a definition that fails them goes by the full path, which answers its error.
    let definition: WorkflowDefinition;
    try {
      definition = checkedDefinition(activity.workflowDefinition);
    } catch {
      return undefined;
    }
    return { webhook, webhookVersion: v.wv, activityVersion: v.av, owner, activityId: webhook.activityId, definitionJson: JSON.stringify(definition), inputSchema: definition.input_schema };
  }

  /**
   * Accepts a trigger whose secret, state and origin the caller checked
   * against `cached`: the inputs are checked against the input schema
   * (400 as at create); an owner whose monthly executions quota a batch of
   * this process found used up less than QUOTA_FIGURE_TTL_MS ago gets its
   * 429 at once (no statement); otherwise the trigger joins the next batch.
   */
  async accept(cached: CachedWebhook, inputs: Record<string, unknown>, limits: AcceptLimits): Promise<AcceptOutcome> {
    const errors = validateInputs(cached.inputSchema as Parameters<typeof validateInputs>[0], inputs);
    if (errors.length) return { outcome: 'stale' }; // the full path answers the 400 with its own wording
    const figure = this.quotaFigures.get(cached.owner.id);
    if (figure) {
      const now = this.now();
      if (now.getTime() - figure.at < QUOTA_FIGURE_TTL_MS && figure.period === periodOf(now) && figure.used >= figure.limit) {
        // A flood is audited once per figure (at most once a TTL per owner and process), not once per refused trigger.
        if (!figure.audited) {
          figure.audited = true;
          this.deps.audit.record({ action: 'quota.exceeded', actorUserId: cached.owner.id, details: { quota: 'executions', used: figure.used, limit: figure.limit, period: figure.period } });
        }
        throw quotaExceededError('executions', figure.used, figure.limit, figure.period, now);
      }
      if (now.getTime() - figure.at >= QUOTA_FIGURE_TTL_MS) this.quotaFigures.delete(cached.owner.id);
    }
    return this.accepts.submit({ cached, inputs, ...limits });
  }

  /**
   * One round trip and one commit for a batch (WebhookAcceptRepository.acceptBatch):
   * the webhooks' rows locked and their versions compared (a moved one sends
   * its triggers to the full path), each webhook's rate window counted once
   * for all its triggers, each owner's running cap counted under the owner's
   * accept lock (running plus accepted-but-not-started), the
   * admitted executions inserted, the webhooks' counts raised. Triggers over
   * a limit get its 429, in arrival order (the first ones are admitted).
   */
  private async commit(batch: AcceptItem[]): Promise<ItemOutcome<AcceptOutcome>[]> {
    const outcomes: ItemOutcome<AcceptOutcome>[] = batch.map(() => ({ ok: true, value: { outcome: 'stale' } }));
    const byWebhook = new Map<number, number[]>();
    batch.forEach((item, i) => byWebhook.set(item.cached.webhook.id, [...(byWebhook.get(item.cached.webhook.id) ?? []), i]));
    const groups = [...byWebhook.entries()].sort(([a], [b]) => a - b);
    const now = this.now();
    const period = periodOf(now);
    let results;
    try {
      results = await this.deps.store.acceptBatch(
        groups.map(([, indexes]) => {
          const first = batch[indexes[0]!]!;
          const c = first.cached;
          return {
            webhookId: c.webhook.id,
            ownerId: c.owner.id,
            activityId: c.activityId,
            webhookVersion: c.webhookVersion,
            activityVersion: c.activityVersion,
            role: c.owner.role,
            definitionJson: c.definitionJson,
            inputsJson: indexes.map((i) => JSON.stringify(batch[i]!.inputs)),
            perMinute: first.perMinute,
            maxRunning: first.maxRunning,
            period,
            executionsMonthly: first.executionsMonthly,
          };
        }),
      );
    } catch (err) {
      // A batch that fails goes trigger by trigger through the full path, so that an error is only its own trigger's.
      this.deps.logger.warn('webhook accept batch failed; its triggers take the full path', { triggers: batch.length, error: errorMessage(err) });
      return outcomes;
    }

    groups.forEach(([webhookId, indexes], g) => {
      const r = results[g]!;
      if (!r.ok) {
        this.invalidate(webhookId);
        return;
      }
      const { perMinute, maxRunning, cached } = batch[indexes[0]!]!;
      const owner = cached.owner.id;
      const quotaRoom = r.quotaLimit === null ? Infinity : r.quotaLimit - r.quotaUsed;
      if (r.quotaLimit === null) this.quotaFigures.delete(owner);
      else
        this.quotaFigures.set(owner, {
          period,
          limit: r.quotaLimit,
          used: r.quotaUsed + r.ids.length,
          at: now.getTime(),
          audited: indexes.some((_, k) => k >= r.ids.length && k < r.room && k >= quotaRoom),
        });
      indexes.forEach((i, k) => {
        if (k < r.ids.length) {
          outcomes[i] = { ok: true, value: { outcome: 'accepted', response: this.accepted(cached, r.ids[k]!) } };
        } else if (k >= r.room) {
          outcomes[i] = {
            ok: false,
            error: tooManyRequests(`At most ${perMinute} triggers per minute for one webhook`, r, { limit: perMinute, window_seconds: 60 }),
          };
        } else if (k >= quotaRoom) {
          // As a start its statement refused for the quota (wfx_start_v3): 429 quota_exceeded, audited.
          const used = r.quotaUsed + r.ids.length;
          this.deps.audit.record({ action: 'quota.exceeded', actorUserId: owner, details: { quota: 'executions', used, limit: r.quotaLimit!, period } });
          outcomes[i] = { ok: false, error: quotaExceededError('executions', used, r.quotaLimit!, period, now) };
        } else {
          outcomes[i] = {
            ok: false,
            error: new TooManyRequestsError(`Too many running executions: at most ${maxRunning} per user; retry when one finishes`, { limit: maxRunning, running: r.running + k }),
          };
        }
      });
    });
    return outcomes;
  }

  /** The answer to an admitted trigger, once committed; its audit rows; its start queued. */
  private accepted(cached: CachedWebhook, id: number): TriggerResponse {
    const owner = cached.owner;
    this.deps.audit.record({ action: 'workflow.execution.created', actorUserId: owner.id, details: { execution_id: id, activity_id: cached.activityId } });
    this.deps.audit.record({ action: 'webhook.delivered', actorUserId: owner.id, details: { webhook_id: cached.webhook.id, execution_id: id, documents_count: 0 } });
    this.enqueueStart(id, owner);
    return {
      success: true,
      execution_id: id,
      job_id: workflowJobId(id),
      message: 'Workflow triggered',
      polling_token: signPollingToken({ executionId: id, userId: owner.id }, this.deps.jwtSecret),
    };
  }

  /** Queues the start of an accepted execution in this process (at most START_CONCURRENCY at once). */
  private enqueueStart(id: number, owner: Caller): void {
    if (this.tracked.has(id)) return;
    this.tracked.add(id);
    this.waiting.push({ id, owner });
    this.schedulePump();
  }

  /**
   * Starts are let in at the end of the turn (setImmediate), never in the turn that committed a batch: the
   * batch's answers are written first (a start's first statement would otherwise be sent, and its work done,
   * before them), and the starts queued by one batch, or freed by one finished wave, go in together and share
   * the starts' grouped statements instead of trickling in one by one.
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < START_CONCURRENCY && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      this.inFlight++;
      void this.startOne(next.id, next.owner).finally(() => {
        this.inFlight--;
        this.tracked.delete(next.id);
        this.schedulePump();
      });
    }
  }

  /**
   * One start. Started, or no longer queued (cancelled, started by another
   * process): done. Refused for a reason that passes (the router or the
   * database unreachable, the running cap taken by other starts): left
   * `queued` and `start_pending` for a later sweep. Refused for good (a
   * monthly quota, inputs the start refuses): marked failed `not_started`,
   * as createAndStart does.
   */
  private async startOne(id: number, owner: Caller): Promise<void> {
    try {
      await this.deps.executions.startAccepted(owner, id);
    } catch (err) {
      const status = err instanceof AppError ? err.status : undefined;
      const capped = err instanceof AppError && status === 429 && 'running' in err.details;
      if (status === 404 || status === 409) return;
      if (capped || status === undefined || status >= 500) {
        this.deps.logger.warn('accepted webhook execution not started yet; the sweep tries again', { executionId: id, error: errorMessage(err) });
        return;
      }
      const failed = await this.deps.executionsRepo.failUnstarted(id, `Not started: ${errorMessage(err)}`).catch(() => false);
      this.deps.logger.warn('accepted webhook execution refused; marked failed', { executionId: id, markedFailed: failed, error: errorMessage(err) });
    }
  }

  /**
   * Starts the pending executions nobody has started for SWEEP_AFTER_SECONDS (a process died between its answer
   * and the start, or the start was refused for a while). Run by every workers-role process (a start is guarded:
   * one of two racing starts wins).
   */
  async sweep(): Promise<number> {
    let queued = 0;
    try {
      const rows = await this.deps.store.pendingStarts(SWEEP_AFTER_SECONDS, SWEEP_LIMIT);
      for (const r of rows) {
        if (this.tracked.has(r.id)) continue;
        this.enqueueStart(r.id, { id: r.userId, role: r.role } as Caller);
        queued++;
      }
    } catch (err) {
      this.deps.logger.warn('pending webhook starts sweep failed', { error: errorMessage(err) });
    }
    return queued + (await this.resubmitUnsubmitted());
  }

  /**
   * A start commits `running` before it submits the job to the router; a process killed in between leaves an
   * execution running with no job (the fault suite's SIGKILL of the public API found some). Those with no result
   * RESUBMIT_AFTER_SECONDS after their start get their job submitted again, once, with the same job id: webhook
   * starts and starts by hand alike (a start by hand has the same gap between its commit and its submission),
   * and resumes, whose job is rebuilt from what the resume kept on the row.
   */
  private async resubmitUnsubmitted(): Promise<number> {
    let resubmitted = 0;
    try {
      for (const row of await this.deps.store.unsubmittedStarts(RESUBMIT_AFTER_SECONDS, RESUBMIT_LIMIT)) {
        const outcome = await this.deps.executions.resubmitStarted(row, row.jobId);
        await this.deps.store.markResubmitted(row.id, row.jobId);
        this.deps.logger.warn('execution running without a result; its job submitted again', { executionId: row.id, jobId: row.jobId, outcome });
        resubmitted++;
      }
      // A resume has the same gap between its commit and its submission (docs/decisions.md, "Resumes are resubmitted").
      for (const row of await this.deps.store.unsubmittedResumes(RESUBMIT_AFTER_SECONDS, RESUBMIT_LIMIT)) {
        const outcome = await this.deps.executions.resubmitResumed(row);
        await this.deps.store.markResumeResubmitted(row.id, row.jobId);
        this.deps.logger.warn('resumed execution running without a result; its job submitted again', { executionId: row.id, jobId: row.jobId, outcome });
        resubmitted++;
      }
    } catch (err) {
      this.deps.logger.warn('webhook job resubmission sweep failed', { error: errorMessage(err) });
    }
    return resubmitted;
  }
}

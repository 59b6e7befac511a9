import { BadRequestError, errorMessage, ForbiddenError, type Logger, NotFoundError } from '@docflow/service-kit';
import { ACCEPTED_MIME_TYPES } from '@docflow/text-extraction';
import { ACTIVITY_NOT_FOUND, type Caller, canRead } from '../activities/activities.service';
import type { ActivitiesRepository } from '../activities/activities.repository';
import type { AuditLog } from '../../identity';
import type { DocumentRecord } from '../../documents';
import type { DocumentsService } from '../../documents';
import type { TextExtractionRunner } from '../../documents';
import type { UploadService } from '../../documents';
import type { SpooledFile } from '../../documents';
import type { UsersService } from '../../identity';
import type { WorkflowExecutionsService } from '../executions/workflow-executions.service';
import { signPollingToken } from '../executions/polling-token';
import { coerceFormFields } from './form-fields';
import type { WebhookEntity } from './webhook.entity';
import { hashWebhookSecret, newWebhookSecret } from './webhook-secret';
import { type CreateWebhookInput, DEFAULT_MAX_FILE_SIZE_MB, type WebhookSettings } from './webhooks.dto';
import type { WebhooksRepository } from './webhooks.repository';

const MB = 1024 * 1024;
/** Spec 8: the previous secret is accepted this long after a rotation. */
export const SECRET_GRACE_MS = 24 * 3600 * 1000;

export const WEBHOOK_NOT_FOUND = 'Webhook not found';

/** A webhook as its owner sees it; the secret only on create and regenerate. */
export interface WebhookView {
  id: number;
  name: string;
  url: string;
  active: boolean;
  event_type: string | null;
  activity: { id: number; name?: string | null };
  accept_files: boolean;
  max_file_size_mb: number;
  allowed_mime_types: string[];
  auto_enable_rag: boolean;
  allowed_origins: string[];
  trigger_count: number;
  last_triggered_at: string | null;
  previous_secret_expires_at: string | null;
  createdAt: string;
  updatedAt: string;
  secret_key?: string;
}

export interface UploadedDocument {
  field_name: string;
  document_id: number;
  file_url: string;
  file_name: string;
  mime_type: string;
  file_size: number;
}

export interface TriggerResponse {
  success: true;
  execution_id: number;
  job_id: string;
  message: string;
  polling_token: string;
  uploaded_documents?: UploadedDocument[];
  documents_count?: number;
}

export interface WebhooksServiceDeps {
  repo: WebhooksRepository;
  activities: ActivitiesRepository;
  users: UsersService;
  executions: WorkflowExecutionsService;
  uploads: UploadService;
  documents: DocumentsService;
  textExtraction: Pick<TextExtractionRunner, 'enqueue'>;
  /** Enables RAG on a document (auto_enable_rag); undefined when RAG cannot index here. */
  enableRag?: (documentId: number, ownerId: number) => Promise<unknown>;
  audit: AuditLog;
  logger: Logger;
  /** PUBLIC_BASE_URL: trigger URLs are `<it>/api/webhooks/trigger/<id>`. */
  publicBaseUrl: string;
  jwtSecret: string;
}

/** Webhooks (spec 2.14, 4.9): the owner's triggers of an activity, and the trigger itself. */
export class WebhooksService {
  constructor(private readonly deps: WebhooksServiceDeps) {}

  private view(w: WebhookEntity, activityName?: string | null): WebhookView {
    return {
      id: w.id,
      name: w.name,
      url: `${this.deps.publicBaseUrl.replace(/\/+$/, '')}/api/webhooks/trigger/${w.id}`,
      active: w.active,
      event_type: w.eventType,
      activity: activityName === undefined ? { id: w.activityId } : { id: w.activityId, name: activityName },
      accept_files: w.acceptFiles,
      max_file_size_mb: w.maxFileSizeMb,
      allowed_mime_types: w.allowedMimeTypes,
      auto_enable_rag: w.autoEnableRag,
      allowed_origins: w.allowedOrigins,
      trigger_count: w.triggerCount,
      last_triggered_at: w.lastTriggeredAt ? w.lastTriggeredAt.toISOString() : null,
      previous_secret_expires_at: w.previousSecretExpiresAt ? w.previousSecretExpiresAt.toISOString() : null,
      createdAt: w.createdAt.toISOString(),
      updatedAt: w.updatedAt.toISOString(),
    };
  }

  async list(ownerId: number): Promise<WebhookView[]> {
    return (await this.deps.repo.listOwned(ownerId)).map(({ webhook, activityName }) => this.view(webhook, activityName));
  }

  async get(ownerId: number, id: number): Promise<WebhookView> {
    const w = await this.deps.repo.findOwned(id, ownerId);
    if (!w) throw new NotFoundError(WEBHOOK_NOT_FOUND);
    return this.view(w);
  }

  /** A webhook of an activity the caller may run; the secret is in this answer only. */
  async create(user: Caller, input: CreateWebhookInput): Promise<WebhookView> {
    const activity = await this.deps.activities.findById(input.activityId);
    if (!activity || !canRead(user, activity)) throw new NotFoundError(ACTIVITY_NOT_FOUND);
    const secret = newWebhookSecret();
    const w = await this.deps.repo.insert({
      ownerId: user.id,
      activityId: input.activityId,
      name: input.name ?? `${activity.name} webhook`,
      secretHash: hashWebhookSecret(secret),
      active: input.active ?? true,
      eventType: input.eventType ?? null,
      acceptFiles: input.acceptFiles ?? true,
      maxFileSizeMb: input.maxFileSizeMb ?? DEFAULT_MAX_FILE_SIZE_MB,
      allowedMimeTypes: input.allowedMimeTypes ?? [...ACCEPTED_MIME_TYPES],
      autoEnableRag: input.autoEnableRag ?? false,
      allowedOrigins: input.allowedOrigins ?? [],
    });
    this.deps.audit.record({ action: 'webhook.created', actorUserId: user.id, details: { webhook_id: w.id, activity_id: w.activityId } });
    return { ...this.view(w, activity.name), secret_key: secret };
  }

  async update(ownerId: number, id: number, settings: WebhookSettings): Promise<WebhookView> {
    const w = await this.deps.repo.update(id, ownerId, settings);
    if (!w) throw new NotFoundError(WEBHOOK_NOT_FOUND);
    return this.view(w);
  }

  async delete(ownerId: number, id: number): Promise<{ id: number }> {
    if (!(await this.deps.repo.delete(id, ownerId))) throw new NotFoundError(WEBHOOK_NOT_FOUND);
    this.deps.audit.record({ action: 'webhook.deleted', actorUserId: ownerId, details: { webhook_id: id } });
    return { id };
  }

  /** A new secret; the previous one keeps working for SECRET_GRACE_MS (spec 8). */
  async regenerateSecret(ownerId: number, id: number): Promise<{ id: number; secret_key: string; previous_secret_expires_at: string }> {
    const secret = newWebhookSecret();
    const graceUntil = new Date(Date.now() + SECRET_GRACE_MS);
    if (!(await this.deps.repo.rotateSecret(id, ownerId, hashWebhookSecret(secret), graceUntil))) throw new NotFoundError(WEBHOOK_NOT_FOUND);
    this.deps.audit.record({ action: 'webhook.secret_rotated', actorUserId: ownerId, details: { webhook_id: id } });
    return { id, secret_key: secret, previous_secret_expires_at: graceUntil.toISOString() };
  }

  /**
   * POST /webhooks/trigger/{id} once the caller is authenticated (spec 4.9):
   * files become documents of the webhook's owner (checked against the
   * webhook's size and type limits and the owner's quota; DOCX converted),
   * their ids and URLs join the inputs (rule 5), form fields are read as the
   * types the input schema declares (coerceFormFields), and an execution of the
   * activity is created and started as the owner. A start that fails removes
   * the documents this call stored.
   */
  async trigger(webhook: WebhookEntity, given: Record<string, unknown>, files: SpooledFile[], options: { form: boolean }): Promise<TriggerResponse> {
    const owner = await this.deps.users.findById(webhook.ownerId);
    if (!owner || owner.blocked) throw new ForbiddenError('This webhook is inactive');
    const caller: Caller = { id: owner.id, role: owner.role };
    let fields = given;
    if (options.form) {
      const activity = await this.deps.activities.findForExecution(webhook.activityId);
      fields = coerceFormFields(given, activity?.workflowDefinition['input_schema']);
    }
    const stored = files.length > 0 ? await this.storeFiles(webhook, caller, files) : [];
    const uploaded = stored.map(({ field, document }) => this.uploadedView(field, document));
    const inputs: Record<string, unknown> = { ...fields };
    if (uploaded.length > 0) {
      const byField: Record<string, UploadedDocument> = {};
      for (const u of uploaded) {
        inputs[`${u.field_name}_document_id`] = u.document_id;
        inputs[`${u.field_name}_file_url`] = u.file_url;
        byField[u.field_name] = u;
      }
      inputs['_documents'] = byField;
      inputs['_uploaded_files'] = uploaded;
    }

    let started: { execution_id: number; job_id: string };
    try {
      started = await this.deps.executions.createAndStart(caller, { activityId: webhook.activityId, inputs }, 'webhook');
    } catch (err) {
      for (const { document } of stored) await this.deps.documents.delete(document.id, owner.id).catch(() => undefined);
      throw err;
    }
    await this.deps.repo.countTrigger(webhook.id);
    this.afterStore(
      stored.map((s) => s.document),
      owner.id,
      webhook.autoEnableRag,
    );
    this.deps.audit.record({
      action: 'webhook.delivered',
      actorUserId: owner.id,
      details: { webhook_id: webhook.id, execution_id: started.execution_id, documents_count: uploaded.length },
    });
    return {
      success: true,
      execution_id: started.execution_id,
      job_id: started.job_id,
      message: 'Workflow triggered',
      polling_token: signPollingToken({ executionId: started.execution_id, userId: owner.id }, this.deps.jwtSecret),
      ...(uploaded.length > 0 ? { uploaded_documents: uploaded, documents_count: uploaded.length } : {}),
    };
  }

  private async storeFiles(webhook: WebhookEntity, caller: Caller, files: SpooledFile[]): Promise<{ field: string; document: DocumentRecord }[]> {
    if (!webhook.acceptFiles)
      throw BadRequestError.withErrors(
        'This webhook does not accept files',
        files.map((f) => `${f.field}: files are not accepted`),
      );
    const limit = webhook.maxFileSizeMb * MB;
    const tooLarge = files.filter((f) => f.size > limit);
    if (tooLarge.length > 0) {
      throw BadRequestError.withErrors(
        `File is larger than this webhook's limit of ${webhook.maxFileSizeMb} MB`,
        tooLarge.map((f) => `${f.field}: ${f.size} bytes, more than ${limit}`),
      );
    }
    const result = await this.deps.uploads.upload(caller, { description: null, tags: [], metadata: {}, global: false }, files, { allowedMimeTypes: webhook.allowedMimeTypes });
    // upload() stores all files or none, in the order given.
    return result.documents.map((document, i) => ({ field: files[i]?.field ?? 'file', document }));
  }

  private uploadedView(field: string, d: DocumentRecord): UploadedDocument {
    const view = this.deps.documents.view(d);
    return { field_name: field, document_id: d.id, file_url: view.file_url, file_name: d.originalFilename, mime_type: d.mimeType, file_size: d.fileSize };
  }

  /** Text extraction for the new documents, and RAG when the webhook asks for it; neither holds up the answer. */
  private afterStore(documents: DocumentRecord[], ownerId: number, enableRag: boolean): void {
    if (documents.length === 0) return;
    this.deps.textExtraction.enqueue(documents.filter((d) => d.textStatus === 'pending').map((d) => d.id));
    if (!enableRag) return;
    const enable = this.deps.enableRag;
    if (!enable) {
      this.deps.logger.warn('auto_enable_rag is set but RAG indexing is not available here', { documents: documents.map((d) => d.id) });
      return;
    }
    for (const d of documents) {
      enable(d.id, ownerId).catch((err: unknown) => this.deps.logger.warn('enabling RAG on a webhook document failed', { documentId: d.id, error: errorMessage(err) }));
    }
  }
}

import { EMAIL_RECEIVED, EmailSourceError, EmailSourceWatcher, emailEventPayload, emailWorkflowInputs, type EmailCursorStore, type EmailReceivedEvent, type ImapServer } from '@docflow/email-source';
import { BadRequestError, type Logger, NotFoundError, errorMessage } from '@docflow/service-kit';
import { Readable } from 'node:stream';
import type { Caller } from '../activities/activities.service';
import type { createCredentialsService } from '../../identity';
import type { DocumentImportService } from './document-import';
import type { CreateSourceInput } from './event-bus.dto';
import type { EventSourceEntity } from './event-bus.entity';
import type { EmailSources } from './event-bus.service';
import type { EventLogsRepository } from './event-logs.repository';
import type { EventSourcesRepository } from './event-sources.repository';

export interface EmailSourcesDeps {
  sources: EventSourcesRepository;
  logs: EventLogsRepository;
  cursors: EmailCursorStore;
  credentials: Pick<ReturnType<typeof createCredentialsService>, 'fieldsFor'>;
  importer: DocumentImportService;
  dispatch(eventId: string): void;
  logger: Logger;
}

/**
 * The IMAP server and login of an e-mail source, from the owner's stored
 * credential: `host`, `port` (default 993 with TLS, 143 without), `secure`
 * (`true`/`false`, default true on 993), `user` (or `username`, default the
 * address) and `password`; `tls_reject_unauthorized: false` for a server
 * with a self-signed certificate.
 */
export function imapServerOf(fields: Record<string, string>, emailAddress: string): ImapServer | { errors: string[] } {
  const errors: string[] = [];
  const host = fields['host']?.trim();
  const password = fields['password'];
  if (!host) errors.push('the credential needs a host field (the IMAP server)');
  if (!password) errors.push('the credential needs a password field');
  const port = fields['port'] === undefined ? undefined : Number(fields['port']);
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) errors.push('the credential’s port must be 1 to 65535');
  const secure = fields['secure'] === undefined ? (port ?? 993) === 993 : fields['secure'] === 'true';
  if (errors.length || !host || !password) return { errors };
  return { host, port: port ?? (secure ? 993 : 143), secure, user: fields['user'] ?? fields['username'] ?? emailAddress, password, rejectUnauthorized: fields['tls_reject_unauthorized'] !== 'false' };
}

/**
 * E-mail sources (spec 2.16 staging): one EmailSourceWatcher per active
 * source in each process (IMAP IDLE); every new message is recorded once
 * (its event id is stable, the event log's unique index drops a repeat from
 * another process), its attachments stored as documents of the owner, and
 * dispatched like a drive event (`email_received`). A refused login or a
 * missing mailbox makes the source inactive with `error_message` (3.6).
 */
export class EmailSourcesRuntime implements EmailSources {
  private readonly watchers = new Map<number, EmailSourceWatcher>();

  constructor(private readonly deps: EmailSourcesDeps) {}

  async create(owner: Caller, input: Extract<CreateSourceInput, { kind: 'email' }>): Promise<EventSourceEntity> {
    const fields = await this.deps.credentials.fieldsFor(owner.id, input.credentialId);
    if (!fields) throw new NotFoundError('Credential not found');
    const server = imapServerOf(fields, input.settings.emailAddress);
    if ('errors' in server) throw BadRequestError.withErrors('The credential cannot log in to an IMAP server', server.errors);
    const source = await this.deps.sources.insert({
      ownerId: owner.id,
      name: input.name ?? input.settings.emailAddress,
      sourceType: 'email',
      config: { email_address: input.settings.emailAddress, label_ids: input.settings.mailboxes, credential_id: input.credentialId },
      driveItemId: null,
      driveItemType: null,
      driveItemName: null,
      pageToken: null,
      isActive: true,
      errorMessage: null,
    });
    try {
      await this.open(source, server);
    } catch (err) {
      // Bad input changes nothing: the source is not kept.
      await this.deps.sources.delete(source.id, owner.id);
      if (err instanceof EmailSourceError) throw BadRequestError.withErrors('The mailbox cannot be watched', [err.message]);
      throw err;
    }
    return source;
  }

  async activate(source: EventSourceEntity): Promise<void> {
    await this.stop(source.id);
    const server = await this.serverOf(source);
    if ('errors' in server) throw BadRequestError.withErrors('The credential cannot log in to an IMAP server', server.errors);
    try {
      await this.open(source, server);
    } catch (err) {
      if (err instanceof EmailSourceError) throw BadRequestError.withErrors('The mailbox cannot be watched', [err.message]);
      throw err;
    }
    await this.deps.sources.activate(source.id);
  }

  async startAll(): Promise<void> {
    for (const source of await this.deps.sources.listActive('email')) {
      const server = await this.serverOf(source).catch((err: unknown) => ({ errors: [errorMessage(err)] }));
      if ('errors' in server) {
        await this.deps.sources.deactivate(source.id, server.errors.join('; '));
        continue;
      }
      await this.open(source, server).catch(async (err: unknown) => {
        if (err instanceof EmailSourceError && err.kind !== 'connection') await this.deps.sources.deactivate(source.id, err.message);
        else this.deps.logger.warn('e-mail source not opened', { sourceId: source.id, error: errorMessage(err) });
      });
    }
  }

  async stop(sourceId: number): Promise<void> {
    const watcher = this.watchers.get(sourceId);
    this.watchers.delete(sourceId);
    await watcher?.stop();
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.watchers.keys()].map((id) => this.stop(id)));
  }

  /** A read pass on every mailbox of the source now (tests). */
  async checkNow(sourceId: number): Promise<void> {
    await this.watchers.get(sourceId)?.checkNow();
  }

  private async serverOf(source: EventSourceEntity): Promise<ImapServer | { errors: string[] }> {
    const credentialId = Number(source.config['credential_id']);
    const fields = Number.isInteger(credentialId) ? await this.deps.credentials.fieldsFor(source.ownerId, credentialId) : undefined;
    if (!fields) return { errors: ['The credential of this e-mail source was deleted'] };
    return imapServerOf(fields, String(source.config['email_address'] ?? ''));
  }

  private async open(source: EventSourceEntity, server: ImapServer): Promise<void> {
    const labels = Array.isArray(source.config['label_ids']) ? (source.config['label_ids'] as string[]) : ['INBOX'];
    const watcher = new EmailSourceWatcher({
      sourceId: source.id,
      settings: { emailAddress: String(source.config['email_address'] ?? ''), mailboxes: labels },
      server,
      cursors: this.deps.cursors,
      onMessage: (event) => this.receive(source, event),
      onStopped: (error) => {
        this.watchers.delete(source.id);
        void this.deps.sources.deactivate(source.id, error.message).catch(() => undefined);
      },
      logger: this.deps.logger,
    });
    await watcher.start();
    this.watchers.set(source.id, watcher);
  }

  /** One new message: attachments become documents of the owner (once per message), the event is recorded once and dispatched. */
  private async receive(source: EventSourceEntity, event: EmailReceivedEvent): Promise<void> {
    if (await this.deps.logs.findByEventId(event.eventId)) return;
    const documentIds: number[] = [];
    for (const [i, attachment] of event.attachments.entries()) {
      const stored = await this.deps.importer
        .import({
          userId: source.ownerId,
          fileName: attachment.name,
          contentType: attachment.mimeType,
          content: Readable.from([attachment.content]),
          source: 'email_event',
          sourceRef: event.eventId,
          idempotencyKey: `email_event:${event.eventId}:${i}`,
        })
        .catch((err: unknown) => {
          this.deps.logger.warn('e-mail attachment not stored', { sourceId: source.id, eventId: event.eventId, error: errorMessage(err) });
          return null;
        });
      if (stored) documentIds.push(stored.document_id);
    }
    const payload = { ...emailEventPayload(event), inputs: emailWorkflowInputs(event, documentIds) };
    await this.deps.logs.insertOnce({ eventId: event.eventId, ownerId: source.ownerId, sourceId: source.id, sourceType: 'email', eventType: EMAIL_RECEIVED, payload, receivedAt: new Date() });
    this.deps.dispatch(event.eventId);
  }
}

import type { Readable } from 'node:stream';
import { generateKey, type SignedUrlVerdict, type StorageDriver } from '@docflow/storage';
import { errorMessage, ForbiddenError, type Logger, NotFoundError } from '@docflow/service-kit';
import type { AuditLog } from '../audit/audit-log';
import { exportArchive } from './export-archive';
import type { ExportRecord, GdprRepository } from './gdpr.repository';
import type { UserDataHolder } from './user-data';

/** Signs and checks the export's download link (the documents module's signed URLs, spec 4.14). */
export interface GdprSignedUrls {
  sign(path: string, options?: { ttlSeconds?: number; now?: number }): { url: string; expiresAt: Date };
  /** Checks a request's `originalUrl` (from /api) against its signature. */
  verify(originalUrl: string): SignedUrlVerdict;
}

/** GET /users/me/export: one export's state; the download link is signed afresh on each read. */
export interface ExportView {
  id: number;
  status: ExportRecord['status'];
  requested_at: string;
  ready_at: string | null;
  expires_at: string | null;
  size_bytes: number | null;
  download_url: string | null;
  download_url_expires_at: string | null;
}

export interface DataExportsDeps {
  repo: GdprRepository;
  storage: StorageDriver;
  audit: AuditLog;
  logger: Logger;
  signedUrls: GdprSignedUrls;
  /** Every module's part, identity's own first. */
  holders: () => readonly UserDataHolder[];
  /** How long a ready archive is kept (spec 8: 7 days). */
  retentionSeconds: number;
  /** Attempts before an export is marked failed. Default 3. */
  maxAttempts?: number;
  /** A build not finished after this long is taken again by another worker. Default 900. */
  staleSeconds?: number;
}

export const exportDownloadPath = (id: number) => `/users/me/export/${id}/download`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Data exports (issue #18 item 1, GDPR access and portability): a request is
 * recorded at once (`gdpr.export.requested`), the archive is built by the
 * workers role (`buildPending`), stored with the documents' storage driver,
 * announced (`gdpr.export.ready`) and downloadable by a signed link until it
 * expires; `purgeExpired` removes it after the retention (spec 8).
 */
export class DataExportsService {
  constructor(private readonly deps: DataExportsDeps) {}

  async request(userId: number): Promise<ExportView> {
    const { record, created } = await this.deps.repo.requestExport(userId);
    if (created) this.deps.audit.record({ action: 'gdpr.export.requested', actorUserId: userId, details: { export_id: record.id } });
    return this.view(record);
  }

  async latest(userId: number): Promise<ExportView> {
    const record = await this.deps.repo.latestExport(userId);
    if (!record) throw new NotFoundError('No data export requested');
    return this.view(record);
  }

  /** The archive's link; tests sign one in the past to see it refused. */
  downloadUrl(record: Pick<ExportRecord, 'id' | 'expiresAt'>, now = Date.now()): { url: string; expiresAt: Date } {
    return this.deps.signedUrls.sign(exportDownloadPath(record.id), { now });
  }

  view(record: ExportRecord, now = Date.now()): ExportView {
    const ready = record.status === 'ready' && record.expiresAt !== null && record.expiresAt.getTime() > now;
    const link = ready ? this.downloadUrl(record, now) : undefined;
    // The link never outlives the archive.
    const linkExpiry = link && record.expiresAt && record.expiresAt < link.expiresAt ? record.expiresAt : link?.expiresAt;
    return {
      id: record.id,
      status: record.status,
      requested_at: record.requestedAt.toISOString(),
      ready_at: iso(record.readyAt),
      expires_at: iso(record.expiresAt),
      size_bytes: record.sizeBytes,
      download_url: link?.url ?? null,
      download_url_expires_at: iso(linkExpiry ?? null),
    };
  }

  /** The archive behind a signed link (the signature is the only credential). */
  async openSigned(id: number, originalUrl: string): Promise<{ record: ExportRecord; stream: Readable }> {
    const verdict = this.deps.signedUrls.verify(originalUrl);
    if (verdict === 'expired') throw new ForbiddenError('This signed URL has expired');
    if (verdict !== 'valid') throw new ForbiddenError('Invalid signature');
    const record = await this.deps.repo.findExport(id);
    if (!record || record.status !== 'ready' || !record.storageKey || (record.expiresAt && record.expiresAt.getTime() <= Date.now())) throw new NotFoundError('Export not found');
    return { record, stream: await this.deps.storage.get(record.storageKey) };
  }

  /** Builds every pending export once, one at a time (workers role); answers how many became ready. */
  async buildPending(): Promise<number> {
    let built = 0;
    // An export that fails is tried again on the next round, not at once.
    const tried: number[] = [];
    for (;;) {
      const record = await this.deps.repo.claimPendingExport(this.deps.staleSeconds ?? 900, tried);
      if (!record) return built;
      tried.push(record.id);
      if (await this.build(record)) built += 1;
    }
  }

  private async build(record: ExportRecord): Promise<boolean> {
    const log = this.deps.logger.child({ exportId: record.id, userId: record.userId });
    const key = generateKey('zip');
    try {
      // Rows recorded by this process (the request itself among them) are written before they are copied.
      await this.deps.audit.flush();
      const copies = [];
      for (const holder of this.deps.holders()) copies.push({ service: holder.service, copy: await holder.exportUser(record.userId) });
      const { stream, manifest } = exportArchive({ exportId: record.id, userId: record.userId, generatedAt: new Date() }, copies);
      const stored = await this.deps.storage.put(key, stream, { contentType: 'application/zip' });
      const ready = await this.deps.repo.markExportReady(record.id, key, stored.size, this.deps.retentionSeconds);
      if (!ready) {
        // The account went meanwhile: its archive must not outlive it.
        await this.deps.storage.delete(key);
        return false;
      }
      this.deps.audit.record({
        action: 'gdpr.export.ready',
        actorUserId: record.userId,
        details: { export_id: record.id, size_bytes: stored.size, sections: manifest.sections.length, files: manifest.files.length, expires_at: iso(ready.expiresAt) },
      });
      log.info('data export ready', { sizeBytes: stored.size });
      return true;
    } catch (err) {
      log.warn('data export failed', { error: errorMessage(err), attempt: record.attempts });
      await this.deps.storage.delete(key).catch(() => undefined);
      await this.deps.repo.markExportAttemptFailed(record.id, errorMessage(err), this.deps.maxAttempts ?? 3);
      return false;
    }
  }

  /** Housekeeping: archives past their retention go, row and stored object. */
  async purgeExpired(now = new Date()): Promise<{ dataExports: number }> {
    const gone = await this.deps.repo.deleteExpiredExports(now);
    await this.removeObjects(gone);
    return { dataExports: gone.length };
  }

  /** Account deletion: every export of the user, row and stored object. */
  async purgeUser(userId: number): Promise<number> {
    const gone = await this.deps.repo.deleteExportsOf(userId);
    await this.removeObjects(gone);
    return gone.length;
  }

  private async removeObjects(gone: { storageKey: string | null }[]): Promise<void> {
    for (const { storageKey } of gone) if (storageKey) await this.deps.storage.delete(storageKey);
  }
}

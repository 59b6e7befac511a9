import type { Response } from 'express';
import type { ListQuery } from '@docflow/list-query';
import { paginationMeta, type PaginationMeta } from '@docflow/list-query';
import type { StorageDriver } from '@docflow/storage';
import { NotFoundError, type Logger } from '@docflow/service-kit';
import { toDocumentView, type DocumentView } from './document-view';
import type { DocumentPatch, DocumentRecord, DocumentRelation, DocumentsRepository } from './documents.repository';
import { type DownloadVariant, sendDocumentFile } from './download';
import { removeStoredObjects } from './stored-objects';

export interface DocumentsServiceDeps {
  repo: DocumentsRepository;
  storage: StorageDriver;
  logger: Logger;
  publicBaseUrl: string;
}

export interface DocumentPage {
  data: DocumentView[];
  meta: { pagination: PaginationMeta };
}

/** Largest list an internal consumer gets in one call. */
export const INTERNAL_LIST_LIMIT = 1000;

/** Reading, changing and deleting documents; owner-only unless a method says otherwise. */
export class DocumentsService {
  constructor(private readonly deps: DocumentsServiceDeps) {}

  view(doc: DocumentRecord, collections?: { id: number; name: string }[]): DocumentView {
    return toDocumentView(doc, this.deps.publicBaseUrl, collections);
  }

  /**
   * Views of the documents, with `collections` when that relation is populated.
   * Collections are private to their owner: a reader who is not the owner (of a
   * global document) sees an empty list.
   */
  async views(docs: DocumentRecord[], populate: readonly DocumentRelation[] = [], readerId?: number): Promise<DocumentView[]> {
    if (!populate.includes('collections')) return docs.map((d) => this.view(d));
    const collections = await this.deps.repo.collectionsOf(docs.map((d) => d.id));
    return docs.map((d) => this.view(d, readerId === undefined || readerId === d.ownerId ? (collections.get(d.id) ?? []) : []));
  }

  async list(ownerId: number, q: ListQuery<DocumentRelation>): Promise<DocumentPage> {
    const { rows, total } = await this.deps.repo.list({ sql: '"d"."owner_id" = :ownerId', params: { ownerId } }, q);
    return { data: await this.views(rows, q.populate), meta: { pagination: paginationMeta(q.pagination, total) } };
  }

  async listGlobal(q: ListQuery<DocumentRelation>): Promise<DocumentPage> {
    const { rows, total } = await this.deps.repo.list({ sql: `"d"."visibility" = 'global'`, params: {} }, q);
    // Collections are private to their owners: never shown on the public list.
    return { data: rows.map((d) => this.view(d)), meta: { pagination: paginationMeta(q.pagination, total) } };
  }

  async listForUser(userId: number, enabledOnly: boolean): Promise<DocumentView[]> {
    return (await this.deps.repo.listForUser(userId, enabledOnly, INTERNAL_LIST_LIMIT)).map((d) => this.view(d));
  }

  /** The caller's document; 404 for a missing one and for another user's. */
  async getOwned(id: number, ownerId: number): Promise<DocumentRecord> {
    const doc = await this.deps.repo.findOwned(id, ownerId);
    if (!doc) throw new NotFoundError('Document not found');
    return doc;
  }

  /** The caller's document or a global one (readable by every user); 404 otherwise. */
  async getReadable(id: number, readerId: number): Promise<DocumentRecord> {
    const doc = await this.deps.repo.findById(id);
    if (!doc || (doc.ownerId !== readerId && doc.visibility !== 'global')) throw new NotFoundError('Document not found');
    return doc;
  }

  /** Documents of the ids given, in that order, whoever owns them (the caller checked access). */
  byIds(ids: number[]): Promise<DocumentRecord[]> {
    return this.deps.repo.findByIds(ids);
  }

  async getById(id: number): Promise<DocumentRecord> {
    const doc = await this.deps.repo.findById(id);
    if (!doc) throw new NotFoundError('Document not found');
    return doc;
  }

  async getGlobal(key: string): Promise<DocumentRecord> {
    const doc = await this.deps.repo.findGlobalByKey(key);
    if (!doc) throw new NotFoundError('Document not found');
    return doc;
  }

  async update(id: number, ownerId: number, patch: DocumentPatch): Promise<DocumentRecord> {
    const doc = await this.deps.repo.update(id, ownerId, patch);
    if (!doc) throw new NotFoundError('Document not found');
    return doc;
  }

  /** Deletes the document, its stored file(s), and gives its bytes back to the owner's quota. */
  async delete(id: number, ownerId: number): Promise<void> {
    const deleted = await this.deps.repo.deleteOwned([id], ownerId);
    if (deleted.length === 0) throw new NotFoundError('Document not found');
    await removeStoredObjects(
      this.deps.storage,
      deleted.flatMap((d) => d.storageKeys),
      this.deps.logger,
    );
  }

  /** Removes the stored files of documents whose rows were deleted (after the transaction commits). */
  removeFiles(keys: string[]): Promise<void> {
    return removeStoredObjects(this.deps.storage, keys, this.deps.logger);
  }

  send(res: Response, doc: DocumentRecord, variant: DownloadVariant = 'served'): Promise<void> {
    return sendDocumentFile(res, this.deps.storage, doc, variant, this.deps.logger);
  }
}

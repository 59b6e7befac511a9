import type { Response } from 'express';
import { type ListQuery, paginationMeta, type PaginationMeta } from '@docflow/list-query';
import { NotFoundError } from '@docflow/service-kit';
import type { DocumentView } from '../document-view';
import type { DocumentsService } from '../documents.service';
import type { CollectionDocumentSummary, CollectionRecord, CollectionsRepository } from './collections.repository';

interface CollectionBase {
  id: number;
  name: string;
  description: string | null;
  /** `{id}`, and `username` too when the owner is populated (`populate=owner` or `*`). */
  owner: { id: number; username?: string | null };
  createdAt: string;
  updatedAt: string;
}

/** In lists: the documents as objects (interface spec 2.3). */
export interface CollectionListView extends CollectionBase {
  documents: CollectionDocumentSummary[];
}

/** After create and add-document: the document ids. */
export interface CollectionIdsView extends CollectionBase {
  documents: number[];
}

function base(c: CollectionRecord): CollectionBase {
  const owner = c.ownerUsername === undefined ? { id: c.ownerId } : { id: c.ownerId, username: c.ownerUsername };
  return { id: c.id, name: c.name, description: c.description, owner, createdAt: c.createdAt.toISOString(), updatedAt: c.updatedAt.toISOString() };
}

export interface CollectionDocumentsPage {
  data: DocumentView[];
  meta: { collection: { id: number; name: string; description: string | null } };
}

/** Collections of the caller's documents; another user's collection is 404 everywhere. */
export class CollectionsService {
  constructor(
    private readonly repo: CollectionsRepository,
    private readonly documents: DocumentsService,
  ) {}

  async list(ownerId: number, q: ListQuery): Promise<{ data: CollectionListView[]; meta: { pagination: PaginationMeta } }> {
    const { rows, total } = await this.repo.list(ownerId, q);
    const summaries = await this.repo.documentSummaries(rows.map((c) => c.id));
    return {
      data: rows.map((c) => ({ ...base(c), documents: summaries.get(c.id) ?? [] })),
      meta: { pagination: paginationMeta(q.pagination, total) },
    };
  }

  async create(ownerId: number, name: string, description: string | null, documentIds: number[]): Promise<CollectionIdsView> {
    const result = await this.repo.create(ownerId, name, description, documentIds);
    if (!result.ok) throw new NotFoundError('Document not found', { errors: result.missingDocumentIds.map((id) => `documents: no document ${id}`) });
    return { ...base(result.collection), documents: result.documentIds };
  }

  async getOwned(id: number, ownerId: number): Promise<CollectionRecord> {
    const collection = await this.repo.findOwned(id, ownerId);
    if (!collection) throw new NotFoundError('Collection not found');
    return collection;
  }

  async documentsOf(id: number, ownerId: number): Promise<CollectionDocumentsPage> {
    const collection = await this.getOwned(id, ownerId);
    const docs = await this.documents.byIds(await this.repo.documentIds(id));
    return { data: docs.map((d) => this.documents.view(d)), meta: { collection: { id: collection.id, name: collection.name, description: collection.description } } };
  }

  async addDocument(id: number, ownerId: number, documentId: number): Promise<CollectionIdsView> {
    await this.getOwned(id, ownerId);
    await this.documents.getOwned(documentId, ownerId);
    if (!(await this.repo.addDocument(id, documentId))) throw new NotFoundError('Document not found');
    const collection = await this.getOwned(id, ownerId);
    return { ...base(collection), documents: await this.repo.documentIds(id) };
  }

  /** Takes the document out of the collection; the document itself is kept. */
  async removeDocument(id: number, ownerId: number, documentId: number): Promise<{ documentCount: number; totalBytes: number }> {
    await this.getOwned(id, ownerId);
    if (!(await this.repo.removeDocument(id, documentId))) throw new NotFoundError('Document not found in this collection');
    return this.repo.storageOf(id);
  }

  /** Deletes the collection and the documents in no other collection; resolves with their ids. */
  async delete(id: number, ownerId: number): Promise<number[]> {
    const deleted = await this.repo.deleteWithExclusiveDocuments(id, ownerId);
    if (deleted === null) throw new NotFoundError('Collection not found');
    await this.documents.removeFiles(deleted.flatMap((d) => d.storageKeys));
    return deleted.map((d) => d.id);
  }

  async download(res: Response, id: number, ownerId: number, documentId: number): Promise<void> {
    await this.getOwned(id, ownerId);
    if (!(await this.repo.isMember(id, documentId))) throw new NotFoundError('Document not found in this collection');
    await this.documents.send(res, await this.documents.getOwned(documentId, ownerId));
  }
}

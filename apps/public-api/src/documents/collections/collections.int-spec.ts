import request from 'supertest';
import type { DocumentView } from '../document-view';
import { type Actor, download, type DocumentsKit, type ErrorBody, filesUnder, openDocumentsKit, upload, type UploadBody } from '../test-support/documents-kit';

let kit: DocumentsKit;

beforeAll(async () => {
  kit = await openDocumentsKit();
});

afterAll(async () => {
  await kit?.close();
});

async function uploadText(actor: Actor, text: string, filename: string): Promise<UploadBody> {
  const res = await upload(kit.app, actor, { content: text, filename, contentType: 'text/plain' });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.text}`);
  return res.body as UploadBody;
}

const as = (actor: Actor) => ({
  get: (url: string) => request(kit.app).get(url).set('authorization', actor.auth),
  post: (url: string, body: object) => request(kit.app).post(url).set('authorization', actor.auth).send(body),
  delete: (url: string) => request(kit.app).delete(url).set('authorization', actor.auth),
});

async function usedBytes(userId: number): Promise<number> {
  const rows = (await kit.bed.database.query('SELECT used_bytes FROM user_storage_usage WHERE user_id = $1', [userId])) as { used_bytes: string }[];
  return Number(rows[0]?.used_bytes ?? 0);
}

interface CollectionIds {
  id: number;
  name: string;
  description: string | null;
  documents: number[];
  owner: { id: number };
  data: { id: number; documents: number[] };
}

describe('collections', () => {
  it('live through create (both bodies), list, add, documents, download, remove and delete', async () => {
    await kit.api.documents.textExtraction.idle();
    const a = await uploadText(kit.alice, 'alpha\n', 'alpha.txt');
    const b = await uploadText(kit.alice, 'beta\n', 'beta.txt');
    const shared = await uploadText(kit.alice, 'shared\n', 'shared.txt');
    const alice = as(kit.alice);

    const wrapped = await alice.post('/api/collections/create-collection', { data: { name: 'Contracts', description: 'Signed ones', documents: [a.id, shared.id] } });
    expect(wrapped.status).toBe(201);
    const contracts = wrapped.body as CollectionIds;
    expect(contracts).toMatchObject({ name: 'Contracts', description: 'Signed ones', documents: [a.id, shared.id], owner: { id: kit.alice.id } });
    expect(contracts.data).toMatchObject({ id: contracts.id, documents: [a.id, shared.id] });

    const flat = await alice.post('/api/collections/create-collection', { name: 'Archive', description: 'Old' });
    expect(flat.status).toBe(201);
    const archive = flat.body as CollectionIds;
    expect(archive).toMatchObject({ name: 'Archive', documents: [] });

    const added = await alice.post(`/api/collections/${archive.id}/add-document`, { documentId: shared.id });
    expect(added.status).toBe(200);
    expect((added.body as CollectionIds).documents).toEqual([shared.id]);
    const again = await alice.post(`/api/collections/${archive.id}/add-document`, { documentId: b.id });
    expect((again.body as CollectionIds).documents).toEqual([shared.id, b.id]);

    const list = await alice.get('/api/collections?populate=documents');
    expect(list.status).toBe(200);
    const listed = list.body as { data: { id: number; name: string; documents: unknown[] }[]; meta: { pagination: { total: number } } };
    expect(listed.meta.pagination.total).toBe(2);
    expect(listed.data.map((c) => c.name)).toEqual(['Archive', 'Contracts']);
    expect(listed.data[1]?.documents).toEqual([
      { id: a.id, title: 'alpha.txt', mimeType: 'text/plain', visibility: 'user', owner: { id: kit.alice.id, username: 'alice' } },
      { id: shared.id, title: 'shared.txt', mimeType: 'text/plain', visibility: 'user', owner: { id: kit.alice.id, username: 'alice' } },
    ]);

    const docs = await alice.get(`/api/collections/${contracts.id}/documents`);
    expect(docs.status).toBe(200);
    const docsBody = docs.body as { data: DocumentView[]; meta: { collection: unknown } };
    expect(docsBody.meta.collection).toEqual({ id: contracts.id, name: 'Contracts', description: 'Signed ones' });
    expect(docsBody.data.map((d) => [d.id, d.fileUrl, d.mime_type])).toEqual([
      [a.id, a.fileUrl, 'text/plain'],
      [shared.id, shared.fileUrl, 'text/plain'],
    ]);

    const file = await download(kit.app, `/api/collections/${contracts.id}/documents/${a.id}/download`, kit.alice);
    expect(file.status).toBe(200);
    expect(file.body.toString()).toBe('alpha\n');
    expect(file.headers['content-disposition']).toContain('filename="alpha.txt"');
    expect((await alice.get(`/api/collections/${contracts.id}/documents/${b.id}/download`)).status).toBe(404);

    // remove-document only takes it out of the collection; the document stays.
    const removed = await alice.post(`/api/collections/${archive.id}/remove-document`, { documentId: b.id });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ message: 'Document removed from the collection', collectionId: archive.id, documentId: b.id, storage: { documentCount: 1, totalBytes: 'shared\n'.length } });
    expect((await alice.get(`/api/documents/${b.id}`)).status).toBe(200);
    expect((await alice.post(`/api/collections/${archive.id}/remove-document`, { documentId: b.id })).status).toBe(404);

    // Deleting Contracts deletes `a` (only there) but keeps `shared` (also in Archive).
    const bytesBefore = await usedBytes(kit.alice.id);
    const filesBefore = await filesUnder(kit.storageDir);
    const deleted = await alice.delete(`/api/collections/${contracts.id}/delete`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Collection deleted', collectionId: contracts.id, deletedDocumentIds: [a.id] });
    expect((await alice.get(`/api/documents/${a.id}`)).status).toBe(404);
    expect((await alice.get(`/api/documents/${shared.id}`)).status).toBe(200);
    expect(await usedBytes(kit.alice.id)).toBe(bytesBefore - 'alpha\n'.length);
    expect(await filesUnder(kit.storageDir)).toHaveLength(filesBefore.length - 1);
    expect((await alice.get(`/api/collections/${contracts.id}/documents`)).status).toBe(404);
    expect(((await alice.get('/api/collections')).body as { data: { id: number }[] }).data.map((c) => c.id)).toEqual([archive.id]);
  });

  it('populate every relation with populate=* (Strapi style): the documents as objects and the owner with its username', async () => {
    const alice = as(kit.alice);
    const doc = await uploadText(kit.alice, 'gamma\n', 'gamma.txt');
    const created = await alice.post('/api/collections/create-collection', { data: { name: 'Populated', documents: [doc.id] } });
    expect(created.status).toBe(201);
    const id = (created.body as CollectionIds).id;
    type Listed = { data: { id: number; owner: unknown; documents: unknown[] }[] };
    const listed = async (query: string) => {
      const res = await alice.get(`/api/collections?${query}`);
      expect(res.status).toBe(200);
      return (res.body as Listed).data.find((c) => c.id === id);
    };
    const documents = [{ id: doc.id, title: 'gamma.txt', mimeType: 'text/plain', visibility: 'user', owner: { id: kit.alice.id, username: 'alice' } }];
    const everything = { owner: { id: kit.alice.id, username: 'alice' }, documents };
    for (const all of ['populate=*', 'populate[0]=*', 'populate=documents,owner', 'populate[owner]=true&populate[documents]=true']) {
      expect({ query: all, ...(await listed(all)) }).toMatchObject({ query: all, ...everything });
    }
    // Documents are listed as objects whatever is asked (spec 2.3); the owner is `{id}` unless populated.
    expect(await listed('populate=documents')).toMatchObject({ owner: { id: kit.alice.id }, documents });
    expect((await listed('populate=documents'))?.owner).toEqual({ id: kit.alice.id });
    expect((await listed(''))?.owner).toEqual({ id: kit.alice.id });
    const unknown = await alice.get('/api/collections?populate=nope');
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { status: 400 } });
  });

  it('validate their bodies', async () => {
    const alice = as(kit.alice);
    const noName = await alice.post('/api/collections/create-collection', { data: { description: 'x' } });
    expect(noName.status).toBe(400);
    expect((noName.body as ErrorBody).error.details.errors).toEqual(['name: is required']);
    const badDocs = await alice.post('/api/collections/create-collection', { name: 'x', documents: ['one'] });
    expect((badDocs.body as ErrorBody).error.details.errors).toEqual(['documents[0]: must be a document id']);
    const created = (await alice.post('/api/collections/create-collection', { name: 'Empty' })).body as CollectionIds;
    const noRef = await alice.post(`/api/collections/${created.id}/add-document`, {});
    expect(noRef.status).toBe(400);
    expect((noRef.body as ErrorBody).error.details.errors).toEqual(['documentId: a document id is required']);
  });
});

describe('bad collection input', () => {
  it('answers the spec error body and creates or changes nothing', async () => {
    const alice = as(kit.alice);
    const doc = await uploadText(kit.alice, 'kept\n', 'kept.txt');
    const kept = (await alice.post('/api/collections/create-collection', { name: 'Kept', documents: [doc.id] })).body as CollectionIds;
    const listed = async () => ((await alice.get('/api/collections')).body as { data: { id: number; documents: { id: number }[] }[] }).data;
    const before = await listed();
    const raw = (url: string, text: string) => request(kit.app).post(url).set('authorization', kit.alice.auth).set('content-type', 'application/json').send(text);

    const refused = await Promise.all([
      raw('/api/collections/create-collection', '{"data": {"name": "Half'),
      alice.post('/api/collections/create-collection', { data: { name: 5 } }),
      alice.post('/api/collections/create-collection', { data: 'Flat', name: 'Flat' }),
      alice.post('/api/collections/create-collection', { data: { name: 'Mixed', documents: [doc.id, 'x'] } }),
      alice.post(`/api/collections/${kept.id}/add-document`, { documentId: 'x' }),
      alice.post(`/api/collections/${kept.id}/remove-document`, { documentId: [doc.id] }),
      raw(`/api/collections/${kept.id}/remove-document`, '{"documentId":'),
    ]);
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: { status: 400, name: 'BadRequestError', message: expect.any(String) as string, details: expect.any(Object) as object } });
    }
    const missing = await Promise.all([
      alice.post('/api/collections/create-collection', { name: 'Ghost', documents: [doc.id, 2_000_000_000] }),
      alice.post('/api/collections/abc/add-document', { documentId: doc.id }),
      alice.get('/api/collections/1.5/documents'),
      alice.delete('/api/collections/abc/delete'),
    ]);
    expect(missing.map((r) => [r.status, (r.body as ErrorBody).error.name])).toEqual(Array(4).fill([404, 'NotFoundError']));
    expect((await request(kit.app).post('/api/collections/create-collection').send({ name: 'Anon' })).body).toMatchObject({ error: { status: 401, name: 'UnauthorizedError' } });

    expect(await listed()).toEqual(before);
    expect((await alice.get(`/api/documents/${doc.id}`)).status).toBe(200);
  });
});

describe("another user's collections and documents", () => {
  it('are 404 for bob on every collection route', async () => {
    const doc = await uploadText(kit.alice, 'private\n', 'private.txt');
    const alice = as(kit.alice);
    const collection = (await alice.post('/api/collections/create-collection', { name: 'Private', documents: [doc.id] })).body as CollectionIds;
    const bobDoc = await uploadText(kit.bob, 'bob\n', 'bob.txt');
    const bob = as(kit.bob);
    const bobCollection = (await bob.post('/api/collections/create-collection', { name: 'Bob' })).body as CollectionIds;

    const answers = await Promise.all([
      bob.get(`/api/collections/${collection.id}/documents`),
      bob.post(`/api/collections/${collection.id}/add-document`, { documentId: bobDoc.id }),
      bob.post(`/api/collections/${collection.id}/remove-document`, { documentId: doc.id }),
      bob.delete(`/api/collections/${collection.id}/delete`),
      bob.get(`/api/collections/${collection.id}/documents/${doc.id}/download`),
      // His own collection with her document.
      bob.post(`/api/collections/${bobCollection.id}/add-document`, { documentId: doc.id }),
      bob.get(`/api/collections/${bobCollection.id}/documents/${doc.id}/download`),
      bob.post('/api/collections/create-collection', { name: 'Stolen', documents: [doc.id] }),
    ]);
    expect(answers.map((r) => r.status)).toEqual(Array(8).fill(404));
    expect(((await bob.get('/api/collections')).body as { data: { name: string }[] }).data.map((c) => c.name)).toEqual(['Bob']);
    // Nothing changed for alice.
    const docs = (await alice.get(`/api/collections/${collection.id}/documents`)).body as { data: { id: number }[] };
    expect(docs.data.map((d) => d.id)).toEqual([doc.id]);
  });
});

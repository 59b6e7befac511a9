import { listQueryString, parseListQuery } from '@docflow/list-query';
import { currentUser } from '../../identity';
import { parseId } from '../documents.dto';
import type { ApiFeature, PlatformServices } from '../../platform';
import { parseCreateCollection, parseDocumentRef } from './collections.dto';
import { describeCollectionRoutes } from './collections.openapi';
import { collectionListSpec } from './collections.repository';
import type { CollectionIdsView, CollectionsService } from './collections.service';
import type { AuthGuards } from '../../identity';

/** Both shapes clients expect of a single collection: its fields, and the same under `data`. */
function single(view: CollectionIdsView): CollectionIdsView & { data: CollectionIdsView } {
  return { ...view, data: view };
}

/** Collections (interface spec 4.3), owner-only. */
export function createCollectionsFeature(collections: CollectionsService): ApiFeature<Pick<PlatformServices, 'openapi'> & { auth: AuthGuards }> {
  return {
    name: 'collections',
    register(api, ctx) {
      const requireAuth = ctx.auth.requireAuth;
      const collectionId = (raw: unknown) => parseId(raw, 'Collection');

      api.get('/collections', requireAuth, async (req, res) => {
        const q = parseListQuery(listQueryString(req.originalUrl), collectionListSpec);
        res.json(await collections.list(currentUser(req).id, q));
      });

      api.post('/collections/create-collection', requireAuth, async (req, res) => {
        const body = parseCreateCollection(req.body);
        res.status(201).json(single(await collections.create(currentUser(req).id, body.name, body.description, body.documents)));
      });

      api.get('/collections/:id/documents', requireAuth, async (req, res) => {
        res.json(await collections.documentsOf(collectionId(req.params.id), currentUser(req).id));
      });

      api.post('/collections/:id/add-document', requireAuth, async (req, res) => {
        const id = collectionId(req.params.id);
        res.json(single(await collections.addDocument(id, currentUser(req).id, parseDocumentRef(req.body))));
      });

      api.post('/collections/:id/remove-document', requireAuth, async (req, res) => {
        const id = collectionId(req.params.id);
        const documentId = parseDocumentRef(req.body);
        const storage = await collections.removeDocument(id, currentUser(req).id, documentId);
        res.json({ message: 'Document removed from the collection', collectionId: id, documentId, storage });
      });

      api.delete('/collections/:id/delete', requireAuth, async (req, res) => {
        const id = collectionId(req.params.id);
        const deletedDocumentIds = await collections.delete(id, currentUser(req).id);
        res.json({ message: 'Collection deleted', collectionId: id, deletedDocumentIds });
      });

      api.get('/collections/:collectionId/documents/:documentId/download', requireAuth, async (req, res) => {
        const id = collectionId(req.params.collectionId);
        await collections.download(res, id, currentUser(req).id, parseId(req.params.documentId));
      });

      describeCollectionRoutes(ctx.openapi);
    },
  };
}

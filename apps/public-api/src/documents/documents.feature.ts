import type { Request, RequestHandler } from 'express';
import { requireServiceAuth } from '@docflow/internal-auth';
import { listQueryString, parseListQuery } from '@docflow/list-query';
import { BadRequestError, ForbiddenError } from '@docflow/service-kit';
import { currentUser } from '../identity';
import type { ApiFeature, PlatformServices } from '../platform';
import { parseDocumentUpdate, parseId, parseMetadataUpdate, parseRagStatusUpdate } from './documents.dto';
import { describeDocumentRoutes } from './documents.openapi';
import { documentListSpec } from './documents.repository';
import type { DocumentsService } from './documents.service';
import { parseVariant } from './download';
import { signedDownloadUrl, verifySignedRequest } from './signed-urls';
import type { TextExtractionRunner } from './text-extraction.runner';
import { parseUploadFields } from './upload/upload-form';
import { removeSpooled, spooledFiles } from './upload/upload-middleware';
import type { UploadResult, UploadService } from './upload/upload.service';
import type { AuthGuards } from '../identity';

export interface DocumentsFeatureDeps {
  documents: DocumentsService;
  uploads: UploadService;
  textExtraction: TextExtractionRunner;
  /** Spools the multipart body (createUploadMiddleware). */
  uploadMiddleware: RequestHandler;
}

function queryValue(req: Request, name: string): string | undefined {
  const value = (req.query as Record<string, unknown>)[name];
  if (Array.isArray(value)) throw BadRequestError.withErrors('Invalid query', [`${name}: given more than once`]);
  return typeof value === 'string' ? value : undefined;
}

function booleanQuery(req: Request, name: string): boolean {
  const value = queryValue(req, name)?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw BadRequestError.withErrors('Invalid query', [`${name}: must be true or false`]);
}

/** Documents (interface spec 4.2 and 5): uploads, reads, downloads, signed and global downloads, internal reads. */
export function createDocumentsFeature(deps: DocumentsFeatureDeps): ApiFeature<Pick<PlatformServices, 'config' | 'openapi'> & { auth: AuthGuards }> {
  const { documents, uploads, textExtraction } = deps;
  return {
    name: 'documents',
    register(api, ctx) {
      const requireAuth = ctx.auth.requireAuth;
      const requireService = requireServiceAuth({ serviceKey: ctx.config.SERVICE_KEY, jwtSecret: ctx.config.INTERNAL_SERVICE_JWT_SECRET });
      // Auth optional: a presented token must be valid, no token is fine.
      const optionalAuth: RequestHandler = (req, res, next) => (req.header('authorization') ? requireAuth(req, res, next) : next());
      const listQuery = (req: Request) => parseListQuery(listQueryString(req.originalUrl), documentListSpec);

      api.post('/documents/upload', requireAuth, deps.uploadMiddleware, async (req, res) => {
        const files = spooledFiles(req);
        let result: UploadResult;
        try {
          result = await uploads.upload(currentUser(req), parseUploadFields(req.body), files);
        } finally {
          // Before the response, so that no temp file outlives the request.
          await removeSpooled(files);
        }
        const views = result.documents.map((d) => documents.view(d));
        // Both documented shapes at once: the first document's fields, and all of them under `data`.
        res.status(201).json({ ...views[0], data: views, ...(result.warning ? { warning: result.warning } : {}) });
        textExtraction.enqueue(result.documents.filter((d) => d.textStatus === 'pending').map((d) => d.id));
      });

      api.get('/documents', requireAuth, async (req, res) => {
        res.json(await documents.list(currentUser(req).id, listQuery(req)));
      });

      api.get('/documents/global', optionalAuth, async (req, res) => {
        res.json(await documents.listGlobal(listQuery(req)));
      });

      api.get('/documents/global/download/:key', async (req, res) => {
        await documents.send(res, await documents.getGlobal(String(req.params.key)));
      });

      api.get('/documents/:id', requireAuth, async (req, res) => {
        const q = parseListQuery(listQueryString(req.originalUrl), documentListSpec);
        const readerId = currentUser(req).id;
        // Global documents are public (listed and downloadable without a token), so any user reads them by id.
        const doc = await documents.getReadable(parseId(req.params.id), readerId);
        const [view] = await documents.views([doc], q.populate, readerId);
        res.json({ data: view });
      });

      api.put('/documents/:id', requireAuth, async (req, res) => {
        const id = parseId(req.params.id);
        const doc = await documents.update(id, currentUser(req).id, parseDocumentUpdate(req.body));
        res.json({ data: documents.view(doc) });
      });

      api.put('/documents/:id/metadata', requireAuth, async (req, res) => {
        const id = parseId(req.params.id);
        const doc = await documents.update(id, currentUser(req).id, parseMetadataUpdate(req.body));
        res.json({ data: documents.view(doc) });
      });

      api.patch('/documents/:id/rag-status', requireAuth, async (req, res) => {
        const id = parseId(req.params.id);
        const doc = await documents.update(id, currentUser(req).id, parseRagStatusUpdate(req.body));
        res.json({ data: documents.view(doc) });
      });

      api.get('/documents/:id/rag-status', requireAuth, async (req, res) => {
        const doc = await documents.getOwned(parseId(req.params.id), currentUser(req).id);
        res.json({ rag_processing_status: doc.ragProcessingStatus, rag_chunk_count: doc.ragChunkCount, ragEnabled: doc.ragEnabled, ragStatus: doc.ragStatus });
      });

      api.delete('/documents/:id', requireAuth, async (req, res) => {
        const id = parseId(req.params.id);
        await documents.delete(id, currentUser(req).id);
        res.json({ data: { id } });
      });

      api.get('/documents/:id/download', requireAuth, async (req, res) => {
        const doc = await documents.getReadable(parseId(req.params.id), currentUser(req).id);
        await documents.send(res, doc, parseVariant(queryValue(req, 'variant')));
      });

      api.get('/documents/:id/signed-url', requireAuth, async (req, res) => {
        const doc = await documents.getOwned(parseId(req.params.id), currentUser(req).id);
        const signed = signedDownloadUrl(ctx.config, doc.id);
        res.json({ url: signed.url, expires_at: signed.expiresAt.toISOString() });
      });

      api.get('/documents/:id/signed-download', async (req, res) => {
        const id = parseId(req.params.id);
        const verdict = verifySignedRequest(ctx.config, req.originalUrl);
        if (verdict === 'expired') throw new ForbiddenError('This signed URL has expired');
        if (verdict !== 'valid') throw new ForbiddenError('Invalid signature');
        await documents.send(res, await documents.getById(id));
      });

      api.get('/internal/documents', requireService, async (req, res) => {
        const raw = queryValue(req, 'user_id');
        if (raw === undefined || !/^[1-9]\d{0,9}$/.test(raw)) throw BadRequestError.withErrors('Invalid query', ['user_id: a positive integer is required']);
        res.json({ data: await documents.listForUser(Number(raw), booleanQuery(req, 'enabled_only')) });
      });

      api.get('/internal/documents/:id/signed-url', requireService, async (req, res) => {
        const doc = await documents.getById(parseId(req.params.id));
        const signed = signedDownloadUrl(ctx.config, doc.id);
        res.json({ url: signed.url, expires_at: signed.expiresAt.toISOString() });
      });

      describeDocumentRoutes(ctx.openapi);
    },
  };
}

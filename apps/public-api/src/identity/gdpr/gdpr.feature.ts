import { pipeline } from 'node:stream/promises';
import { errorMessage, type Logger, NotFoundError } from '@docflow/service-kit';
import { type ApiFeature, idParam, type PlatformServices } from '../../platform';
import { currentUser } from '../auth/auth-user';
import type { AuthGuards } from '../auth/guards';
import type { AccountDeletionsService } from './account-deletions.service';
import type { DataExportsService } from './data-exports.service';
import { describeGdprRoutes } from './gdpr.openapi';

export interface GdprFeatureNeeds extends Pick<PlatformServices, 'openapi'> {
  auth: AuthGuards;
  logger: Logger;
}

/**
 * Issue #18 items 1 and 2 (the spec names no paths; docs/decisions.md
 * "GDPR routes"): the caller's data export and account deletion under
 * /users/me, and the export's signed download (no bearer token).
 */
export function createGdprFeature(services: { exports: DataExportsService; deletions: AccountDeletionsService }): ApiFeature<GdprFeatureNeeds> {
  return {
    name: 'gdpr',
    register(api, ctx) {
      const { requireAuth, requireStepUp } = ctx.auth;
      const { exports, deletions } = services;

      api.post('/users/me/export', requireAuth, async (req, res) => {
        res.status(202).json({ data: await exports.request(currentUser(req).id) });
      });

      api.get('/users/me/export', requireAuth, async (req, res) => {
        res.json({ data: await exports.latest(currentUser(req).id) });
      });

      api.get('/users/me/export/:id/download', async (req, res) => {
        const id = idParam(req.params.id);
        if (id === undefined) throw new NotFoundError('Export not found');
        const { record, stream } = await exports.openSigned(id, req.originalUrl);
        res.status(200);
        res.setHeader('Content-Type', 'application/zip');
        if (record.sizeBytes !== null) res.setHeader('Content-Length', String(record.sizeBytes));
        res.setHeader('Content-Disposition', `attachment; filename="docflow-export-${record.id}.zip"`);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cache-Control', 'private, no-store');
        try {
          await pipeline(stream, res);
        } catch (err) {
          ctx.logger.debug('export download interrupted', { exportId: record.id, error: errorMessage(err) });
        }
      });

      api.post('/users/me/deletion', requireAuth, requireStepUp, async (req, res) => {
        res.status(202).json({ data: await deletions.request(currentUser(req).id) });
      });

      api.get('/users/me/deletion', requireAuth, async (req, res) => {
        res.json({ data: await deletions.status(currentUser(req).id) });
      });

      api.delete('/users/me/deletion', requireAuth, async (req, res) => {
        res.json({ data: await deletions.cancel(currentUser(req).id) });
      });

      describeGdprRoutes(ctx.openapi);
    },
  };
}

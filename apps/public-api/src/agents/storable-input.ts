import type { RequestHandler } from 'express';
import { BadRequestError, NotFoundError } from '@docflow/service-kit';
import { unstorableMessage, unstorablePath } from '../public-access/storable-text';

/**
 * PostgreSQL refuses NUL (and lone surrogates in jsonb), so such input would
 * fail at the query as a 500. Mounted in front of a feature's routes: a path
 * with an encoded NUL names no record (404 with `notFound`), and a body or
 * query string holding such text is 400 naming where, never the value.
 */
export function storableInput(notFound: string): RequestHandler {
  return (req, _res, next) => {
    if (/%00/.test(req.path)) return next(new NotFoundError(notFound));
    const bad = unstorablePath(req.body) ?? unstorablePath({ ...req.query });
    if (bad !== undefined) return next(BadRequestError.withErrors('Invalid request', [unstorableMessage(bad)]));
    next();
  };
}

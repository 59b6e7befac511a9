import { AppError } from '@docflow/service-kit';
import { parseDocumentUpdate, parseId, parseMetadataUpdate, parseRagStatusUpdate } from './documents.dto';

function failure(fn: () => unknown): { status: number; errors: unknown } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, errors: err.details.errors };
    throw err;
  }
  throw new Error('expected an error');
}

describe('document request bodies', () => {
  it('reads PUT /documents/{id} wrapped in data', () => {
    expect(parseDocumentUpdate({ data: { title: 'New', metadata: { a: 1 }, tags: ['x'], description: null } })).toEqual({ title: 'New', metadata: { a: 1 }, tags: ['x'], description: null });
    expect(failure(() => parseDocumentUpdate({ data: {} }))).toEqual({ status: 400, errors: ['nothing to change: send data.title, data.description, data.tags or data.metadata'] });
    expect(failure(() => parseDocumentUpdate({ data: { metadata: 'x', tags: 'a,b' } })).errors).toEqual(['tags: must be an array of strings', 'metadata: must be an object']);
  });

  it('reads both PUT /metadata forms', () => {
    expect(parseMetadataUpdate({ title: 'T', description: 'D', tags: ['t'] })).toEqual({ title: 'T', description: 'D', tags: ['t'] });
    expect(parseMetadataUpdate({ metadata: { pages: 3 } })).toEqual({ metadata: { pages: 3 } });
  });

  it('reads PATCH /rag-status with either spelling and checks the enum', () => {
    expect(parseRagStatusUpdate({ ragEnabled: true, ragStatus: 'processing' })).toEqual({ ragEnabled: true, ragStatus: 'processing' });
    expect(parseRagStatusUpdate({ rag_status: 'failed' })).toEqual({ ragStatus: 'failed' });
    expect(failure(() => parseRagStatusUpdate({ ragStatus: 'queued' })).errors).toEqual(['ragStatus: must be one of enabled, disabled, processing, failed']);
  });

  it('treats any id that is not a positive int4 as missing', () => {
    expect(parseId('42')).toBe(42);
    for (const bad of ['0', '-1', '1.5', 'abc', '2147483648', '007', undefined]) expect(failure(() => parseId(bad)).status).toBe(404);
  });
});

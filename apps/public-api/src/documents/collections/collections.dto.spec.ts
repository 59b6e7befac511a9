import { AppError } from '@docflow/service-kit';
import { parseCreateCollection, parseDocumentRef } from './collections.dto';

function failure(fn: () => unknown): { status: number; errors: unknown } {
  try {
    fn();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, errors: err.details.errors };
    throw err;
  }
  throw new Error('expected an error');
}

describe('POST /collections/create-collection bodies', () => {
  it('reads the wrapped and the flat body', () => {
    expect(parseCreateCollection({ data: { name: ' Contracts ', description: 'd', documents: [3, { id: 4 }] } })).toEqual({ name: 'Contracts', description: 'd', documents: [3, 4] });
    expect(parseCreateCollection({ name: 'Flat', description: null })).toEqual({ name: 'Flat', description: null, documents: [] });
  });

  it('takes document ids sent as numeric strings, as add-document does', () => {
    expect(parseCreateCollection({ data: { name: 'S', documents: ['7', { id: '8' }] } }).documents).toEqual([7, 8]);
    expect(failure(() => parseCreateCollection({ name: 'S', documents: ['seven', '0', 1.5] })).errors).toEqual([
      'documents[0]: must be a document id',
      'documents[1]: must be a document id',
      'documents[2]: must be a document id',
    ]);
  });

  it('names a name of the wrong type instead of calling it missing', () => {
    expect(failure(() => parseCreateCollection({ name: 5 }))).toEqual({ status: 400, errors: ['name: must be a string'] });
    expect(failure(() => parseCreateCollection({ data: { name: '  ' } }))).toEqual({ status: 400, errors: ['name: is required'] });
  });

  it('refuses a data member that is not an object rather than reading the top level', () => {
    expect(failure(() => parseCreateCollection({ data: 'x', name: 'Flat' }))).toEqual({ status: 400, errors: ['data: must be an object'] });
    expect(failure(() => parseCreateCollection({ data: [{ name: 'A' }] }))).toEqual({ status: 400, errors: ['data: must be an object'] });
    expect(failure(() => parseCreateCollection([]))).toEqual({ status: 400, errors: ['body must be a JSON object'] });
  });
});

describe('add-document and remove-document bodies', () => {
  it('read documentId (or document_id, or inside data) as an integer or numeric string', () => {
    expect(parseDocumentRef({ documentId: 5 })).toBe(5);
    expect(parseDocumentRef({ document_id: '6' })).toBe(6);
    expect(parseDocumentRef({ data: { documentId: 7 } })).toBe(7);
    for (const bad of [{}, { documentId: 1.5 }, { documentId: 'x' }, { documentId: 0 }, null, { data: 'x', documentId: 3 }]) {
      expect(failure(() => parseDocumentRef(bad)).status).toBe(400);
    }
  });
});

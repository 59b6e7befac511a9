import { buildRestOutput, unwrapEnvelope } from './rest-output';

describe('rest_api_task output', () => {
  it('unwraps a {success, data} envelope and keeps the whole body as _raw_response', () => {
    const body = { success: true, data: { id: 7, name: 'Ada' }, meta: { next: 'p2' } };
    const out = buildRestOutput(201, body, { next: '$._raw_response.meta.next', ident: '$.data.id', code: '$._status_code' });
    expect(out).toEqual({
      id: 7,
      name: 'Ada',
      data: { id: 7, name: 'Ada' },
      status_code: 201,
      _status_code: 201,
      _raw_response: body,
      next: 'p2',
      ident: 7,
      code: 201,
    });
  });

  it('does not unwrap bodies that only look like an envelope', () => {
    expect(unwrapEnvelope({ data: 1 })).toEqual({ data: 1 });
    expect(unwrapEnvelope({ success: 'yes', data: 1 })).toEqual({ success: 'yes', data: 1 });
    expect(unwrapEnvelope([1, 2])).toEqual([1, 2]);
  });

  it('keeps the fixed keys meaning what the spec says, whatever data or the mapping hold', () => {
    const out = buildRestOutput(200, { data: 'inner?', status_code: 999, x: 1 }, { status_code: '$.data.x', y: '$.data.items[0].id' });
    expect(out['data']).toEqual({ data: 'inner?', status_code: 999, x: 1 });
    expect(out['status_code']).toBe(200);
    expect(out['x']).toBe(1);
    expect(out['y']).toBeNull();
  });

  it('gives text bodies as data and refuses script JSONPaths as a configuration error', () => {
    expect(buildRestOutput(200, 'plain text', undefined)).toEqual({ data: 'plain text', status_code: 200, _status_code: 200, _raw_response: 'plain text' });
    expect(() => buildRestOutput(200, { a: 1 }, { bad: '$..[?(@.a)]' })).toThrow(expect.objectContaining({ name: 'NodeFailure', errorType: 'configuration_error' }));
    expect(() => buildRestOutput(200, { a: 1 }, 'nope')).toThrow(expect.objectContaining({ errorType: 'configuration_error' }));
  });
});

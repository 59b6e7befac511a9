import { StorageFullError, storageWriteError } from './errors';

describe('storageWriteError', () => {
  it('turns a full volume (ENOSPC) or a used-up filesystem quota (EDQUOT) into a 507', () => {
    for (const code of ['ENOSPC', 'EDQUOT']) {
      const mapped = storageWriteError(Object.assign(new Error(`${code}: no space left on device, write`), { code }));
      expect(mapped).toBeInstanceOf(StorageFullError);
      expect(mapped).toMatchObject({ status: 507, name: 'InsufficientStorageError' });
    }
  });

  it('passes any other error through unchanged', () => {
    const other = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    expect(storageWriteError(other)).toBe(other);
  });
});

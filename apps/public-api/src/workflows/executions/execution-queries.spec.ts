import { startQueuedSql } from './execution-queries';

const base = { id: 7, userId: 3, inputs: null, jobId: 'wf_7', at: new Date('2030-01-02T03:04:05.678Z'), maxRunning: 10 };

describe('startQueuedSql', () => {
  it('takes the advisory lock of the owner before the statement that counts', () => {
    const sql = startQueuedSql(base, 44_040_001);
    expect(sql.startsWith('SELECT pg_advisory_xact_lock(44040001, 3);')).toBe(true);
    expect(sql).toContain('running.n < 10');
    expect(sql).toContain("'2030-01-02T03:04:05.678Z'::timestamptz");
    expect(sql).toContain('COALESCE(NULL::jsonb, e.inputs)');
    expect(sql).toContain('(false OR NOT cur.stored_empty)');
  });

  it('escapes inputs as one literal (quotes doubled, backslashes as E-string)', () => {
    const sql = startQueuedSql({ ...base, inputs: { name: "O'Brien'); DROP TABLE users; --", path: 'a\\b' } }, 1);
    expect(sql).toContain(`E'{"name":"O''Brien''); DROP TABLE users; --","path":"a\\\\\\\\b"}'::jsonb`);
    expect(sql).toContain('(true OR NOT cur.stored_empty)');
  });

  it('refuses ids that are not safe integers', () => {
    expect(() => startQueuedSql({ ...base, id: 1.5 }, 1)).toThrow('not an integer: 1.5');
    expect(() => startQueuedSql({ ...base, userId: Number.NaN }, 1)).toThrow('not an integer');
  });
});

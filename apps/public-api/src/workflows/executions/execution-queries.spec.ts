import { START_STATEMENT, startQueuedSql } from './execution-queries';

const base = { id: 7, userId: 3, inputs: null, jobId: 'wf_7', at: new Date('2030-01-02T03:04:05.678Z'), maxRunning: 10, quota: null };

describe('startQueuedSql', () => {
  it('takes the advisory lock of the owner, and says the caller announces the start, before the statement that counts', () => {
    const sql = startQueuedSql(base, 44_040_001);
    expect(sql.startsWith("SELECT pg_advisory_xact_lock(44040001, 3), set_config('docflow.announce', 'caller', true);")).toBe(true);
    expect(sql).toContain("EXECUTE wfx_start_v3(7, 3, NULL, 'wf_7', '2030-01-02T03:04:05.678Z', 10, NULL, NULL, NULL)");
  });

  it('passes the quota terms as the last three values: the period, the default executions and LLM cost limits (null: none)', () => {
    expect(startQueuedSql({ ...base, quota: { period: '2030-01-01', executionsMonthly: 100, llmCostMonthly: 2.5 } }, 1)).toContain(", 10, '2030-01-01', 100, '2.5')");
    expect(startQueuedSql({ ...base, quota: { period: '2030-01-01', executionsMonthly: null, llmCostMonthly: null } }, 1)).toContain(", 10, '2030-01-01', NULL, NULL)");
    expect(() => startQueuedSql({ ...base, quota: { period: '2030-01-01', executionsMonthly: 1.5, llmCostMonthly: null } }, 1)).toThrow('not an integer');
    expect(() => startQueuedSql({ ...base, quota: { period: '2030-01-01', executionsMonthly: null, llmCostMonthly: Number.NaN } }, 1)).toThrow('not a finite number');
  });

  it('escapes inputs as one literal (quotes doubled, backslashes as E-string)', () => {
    const sql = startQueuedSql({ ...base, inputs: { name: "O'Brien'); DROP TABLE users; --", path: 'a\\b' } }, 1);
    expect(sql).toContain(`(7, 3,  E'{"name":"O''Brien''); DROP TABLE users; --","path":"a\\\\\\\\b"}', 'wf_7',`);
  });

  it('refuses ids that are not safe integers', () => {
    expect(() => startQueuedSql({ ...base, id: 1.5 }, 1)).toThrow('not an integer: 1.5');
    expect(() => startQueuedSql({ ...base, userId: Number.NaN }, 1)).toThrow('not an integer');
    expect(() => startQueuedSql({ ...base, maxRunning: 0.5 }, 1)).toThrow('not an integer');
  });
});

describe('START_STATEMENT', () => {
  it('prepares the statement the EXECUTE names, with its nine parameters', () => {
    expect(START_STATEMENT.text.startsWith(`PREPARE ${START_STATEMENT.name}(int, int, jsonb, text, timestamptz, int, date, int, numeric) AS`)).toBe(true);
    expect(START_STATEMENT.text).toContain('running.n < $6 AND ($3 IS NOT NULL OR NOT cur.stored_empty)');
  });

  it('updates the execution only when its count was taken, if a quota period is given (one commit for both)', () => {
    expect(START_STATEMENT.text).toContain('AND ($7 IS NULL OR EXISTS (SELECT 1 FROM quota_taken))');
    expect(START_STATEMENT.text).toContain('FROM quota_lim, go');
  });
});

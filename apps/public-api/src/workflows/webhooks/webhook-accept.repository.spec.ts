import { acceptGroupSql, type AcceptGroup } from './webhook-accept.repository';

const group: AcceptGroup = {
  webhookId: 7,
  ownerId: 3,
  activityId: 11,
  webhookVersion: 'a'.repeat(32),
  activityVersion: 'b'.repeat(32),
  role: 'authenticated',
  definitionJson: '{"nodes":[]}',
  inputsJson: ['{"n":1}', JSON.stringify({ name: "O'Brien'); DROP TABLE users; --", path: 'a\\b' })],
  perMinute: 100,
  maxRunning: 10,
  period: '2026-11-01',
  executionsMonthly: null,
};

describe('acceptGroupSql', () => {
  it('quotes every text value and writes integers as integers', () => {
    const sql = acceptGroupSql(group);
    expect(sql).toContain(`E'{"name":"O''Brien''); DROP TABLE users; --","path":"a\\\\\\\\b"}')) AS t(ord, inputs)`);
    expect(sql).toContain("'webhook:7'");
    expect(sql).toContain('WHERE w.id = 7');
    expect(sql).toContain('user_id = 3');
  });

  it('reads the monthly executions quota with the default given (none: NULL) and the period quoted', () => {
    expect(acceptGroupSql(group)).toContain('WHERE user_id = 3), NULL::integer) AS lim');
    const limited = acceptGroupSql({ ...group, executionsMonthly: 500 });
    expect(limited).toContain('WHERE user_id = 3), 500::integer) AS lim');
    expect(limited).toContain("period = '2026-11-01'::date");
  });

  it('refuses ids that are not integers', () => {
    expect(() => acceptGroupSql({ ...group, ownerId: 1.5 })).toThrow('not an integer');
    expect(() => acceptGroupSql({ ...group, maxRunning: Number.NaN })).toThrow('not an integer');
    expect(() => acceptGroupSql({ ...group, executionsMonthly: 2.5 })).toThrow('not an integer');
  });
});

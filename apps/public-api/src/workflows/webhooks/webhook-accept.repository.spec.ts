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
};

describe('acceptGroupSql', () => {
  it('quotes every text value and writes integers as integers', () => {
    const sql = acceptGroupSql(group);
    expect(sql).toContain(`E'{"name":"O''Brien''); DROP TABLE users; --","path":"a\\\\\\\\b"}')) AS t(ord, inputs)`);
    expect(sql).toContain("'webhook:7'");
    expect(sql).toContain('WHERE w.id = 7');
    expect(sql).toContain('user_id = 3');
  });

  it('refuses ids that are not integers', () => {
    expect(() => acceptGroupSql({ ...group, ownerId: 1.5 })).toThrow('not an integer');
    expect(() => acceptGroupSql({ ...group, maxRunning: Number.NaN })).toThrow('not an integer');
  });
});

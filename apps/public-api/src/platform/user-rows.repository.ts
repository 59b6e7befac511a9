/** What runs a statement: the data source, or the entity manager of a transaction. */
export interface SqlRunner {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Deletes a user's rows of one table and answers how many there were (data
 * export and account deletion, issue #18). `table` and `column` are the
 * caller's own identifiers, never input.
 */
export async function deleteUserRows(runner: SqlRunner, table: string, userId: number, column = 'owner_id'): Promise<number> {
  const rows = (await runner.query(`WITH gone AS (DELETE FROM ${table} WHERE ${column} = $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`, [userId])) as { n: number }[];
  return rows[0]?.n ?? 0;
}

import type { ObjectLiteral, Repository } from 'typeorm';

/**
 * An entity from a raw row of its table (e.g. `UPDATE ... RETURNING *`),
 * so that a statement that changes a row can also be the one that reads it.
 * Columns are matched by their database names; node-postgres has already
 * parsed the values (timestamps, JSON, integers) as TypeORM would.
 */
export function entityFromRow<T extends ObjectLiteral>(repo: Repository<T>, row: Record<string, unknown>): T {
  const entity = repo.create();
  for (const column of repo.metadata.columns) {
    if (column.databaseName in row) (entity as Record<string, unknown>)[column.propertyName] = row[column.databaseName];
  }
  return entity;
}

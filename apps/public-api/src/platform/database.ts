import type { DataSource } from 'typeorm';

/** The public API's database handle, named here so that code outside repositories need not import TypeORM. */
export type PublicApiDatabase = DataSource;

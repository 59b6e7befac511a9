export * from './database';
export * from './notifications';
export * from './pg-pool';

export * from './database';
export * from './notifications';
export * from './pg-pool';
export * from './errors';
export * from './retention';
export * from './raw-rows';
export * from './group-commit';

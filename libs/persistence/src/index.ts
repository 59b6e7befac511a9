export * from './database';
export * from './notifications';

export * from './postgres';
export * from './rabbit';

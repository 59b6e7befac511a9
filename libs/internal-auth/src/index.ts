export * from './internal-auth';

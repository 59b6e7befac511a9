export * from './internal-auth';
export * from './job-user';

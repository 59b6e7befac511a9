export * from './queues';
export * from './jobs';
export * from './results';
export * from './llm';
export * from './workflow-jobs';
export * from './cloud-drive';
export * from './extraction-jobs';
export * from './internal-content';

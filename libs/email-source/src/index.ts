export * from './email-errors';
export * from './cursor-store';
export * from './email-event';
export * from './email-source-config';
export * from './mailbox-watcher';
export * from './email-source-watcher';

export * from './postgres';
export * from './rabbit';
export * from './zip-writer';
export * from './docx-builder';
export * from './llm-service-process';
export * from './loopback-smtp';
export * from './http-target';

export { Broker } from './broker';
export { BrokerUnavailableError, InvalidMessageError, NonRetryableMessageError } from './errors';
export { HandlerRegistry } from './handler-registry';
export type { KindHandler } from './handler-registry';
export { workQueueDeclaration } from './topology';
export type { WorkQueueOptions, WorkQueueDeclaration } from './topology';
export type { BrokerOptions, BrokerState, ConsumeOptions, ConsumerHandle, MessageHandler, MessageMeta, PublishOptions, QueueStats } from './types';

// The workers role: background work started when PUBLIC_API_ROLES includes workers (see server.ts).
export { startWorkers } from './workers';
export type { WorkersDeps } from './workers';
export { startHousekeeping } from './housekeeping';
export type { HousekeepingTask } from './housekeeping';
export { ResultDispatcher, resultFamilyOf, RESULT_FAMILIES } from './results/result-dispatcher';
export type { DispatchOutcome, ResultFamily, ResultHandlers } from './results/result-dispatcher';
export { startResultsConsumer } from './results/results.consumer';

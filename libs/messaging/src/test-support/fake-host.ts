import { silentLogger } from '@docflow/service-kit';
import type { ConsumerHost } from '../subscription';

/** A broker as a consumer unit test needs it: silent, never closing, sleeps done at once unless `overrides` says otherwise. */
export function fakeHost(overrides: Partial<ConsumerHost> = {}): ConsumerHost {
  return { logger: silentLogger, requeueDelayMs: 10, sleep: () => Promise.resolve(), isClosing: () => false, onConsumerLost: () => undefined, forget: () => undefined, ...overrides };
}

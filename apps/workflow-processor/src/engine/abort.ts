/**
 * Why a run stopped scheduling. The engine aborts the run's AbortSignal with
 * one of these as the reason; executors and the engine tell them apart.
 */
export class RunAborted extends Error {
  override readonly name = 'RunAborted';

  constructor(
    readonly kind: 'deadline' | 'shutdown' | 'node_failed' | 'infrastructure' | 'cancelled',
    message: string,
  ) {
    super(message);
  }
}

export function abortReason(signal: AbortSignal): RunAborted {
  const reason: unknown = signal.reason;
  return reason instanceof RunAborted ? reason : new RunAborted('shutdown', 'run aborted');
}

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as it
 * is aborted. Work that cannot be cancelled (a mail being sent, a request
 * without a signal) goes on in the background and its outcome is ignored.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Resolves after `ms`, or rejects with the abort reason when `signal` fires first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

import { useCallback, useEffect, useRef, useState } from 'react';
import { errorText } from './api';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `load()` on mount and whenever `deps` change; with `refreshMs`, again
 * on that interval while the tab is visible (spec 8: poll every 2 to 5 s).
 * `keepPolling(data)` false stops the interval (a settled execution).
 */
export function useData<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[], refreshMs?: number, keepPolling?: (data: T) => boolean): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    const ctl = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async () => {
      try {
        const value = await loadRef.current(ctl.signal);
        if (ctl.signal.aborted) return;
        setData(value);
        setError(undefined);
        if (refreshMs && (!keepPolling || keepPolling(value))) timer = setTimeout(() => void run(), refreshMs);
      } catch (err) {
        if (ctl.signal.aborted) return;
        setError(errorText(err));
        if (refreshMs) timer = setTimeout(() => void run(), refreshMs * 2);
      } finally {
        if (!ctl.signal.aborted) setLoading(false);
      }
    };
    setLoading(true);
    void run();
    return () => {
      ctl.abort();
      if (timer) clearTimeout(timer);
    };
  }, [...deps, tick]);

  return { data, error, loading, reload };
}

import { useState } from 'react';
import { errorText } from './api';

/** Runs a user action (save, delete, …) with a busy flag and its error for display. */
export function useAction(): { busy: boolean; error: string | undefined; run: (fn: () => Promise<unknown>) => Promise<boolean> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await fn();
      setError(undefined);
      return true;
    } catch (err) {
      setError(errorText(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

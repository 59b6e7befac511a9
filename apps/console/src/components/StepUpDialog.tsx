import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, errorText, setStepUpPrompt } from '../lib/api';

/**
 * Spec 5, sensitive operations: when the API answers that an action needs
 * step-up, this dialog mails a code (POST /auth/step-up), takes it
 * (POST /auth/step-up/verify) and lets the action be sent again.
 */
export function StepUpDialog() {
  const dialog = useRef<HTMLDialogElement>(null);
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    setStepUpPrompt(
      () =>
        new Promise<boolean>((resolve) => {
          resolver.current = resolve;
          setSent(false);
          setCode('');
          setError(undefined);
          dialog.current?.showModal();
        }),
    );
    return () => setStepUpPrompt(null);
  }, []);

  const finish = (ok: boolean) => {
    dialog.current?.close();
    resolver.current?.(ok);
    resolver.current = null;
  };

  const send = async () => {
    setBusy(true);
    try {
      await api.post('/auth/step-up');
      setSent(true);
      setError(undefined);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const verify = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await api.post('/auth/step-up/verify', { code: code.trim() });
      finish(true);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={dialog} aria-labelledby="step-up-title" onCancel={() => finish(false)}>
      <h2 id="step-up-title">Confirm it is you</h2>
      <p>This action needs a fresh verification. We mail a 6-digit code to your address; it is valid for 5 minutes.</p>
      {!sent ? (
        <div className="row">
          <button type="button" onClick={() => void send()} disabled={busy}>
            Send code
          </button>
          <button type="button" className="secondary" onClick={() => finish(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <form onSubmit={(e) => void verify(e)}>
          <p role="status">A code is on its way to your mailbox.</p>
          <label htmlFor="step-up-code">Verification code</label>
          <input id="step-up-code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6} value={code} onChange={(e) => setCode(e.target.value)} required />
          <div className="row">
            <button type="submit" disabled={busy}>
              Verify
            </button>
            <button type="button" className="secondary" onClick={() => finish(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </dialog>
  );
}

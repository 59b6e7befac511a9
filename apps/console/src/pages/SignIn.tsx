import { type FormEvent, useState } from 'react';
import { api, errorText, type Session, type SessionUser, setSession } from '../lib/api';
import { PageHeader } from '../components/ui';

export function SignIn() {
  const [identifier, setIdentifier] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const login = await api.post<Session>('/auth/local', { identifier, password });
      setSession(login);
      // The role decides whether the audit log shows everyone's rows.
      const me = await api.get<SessionUser>('/users/me');
      setSession({ jwt: login.jwt, user: me });
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="sign-in">
      <PageHeader title="Sign in to Docflow" />
      <form onSubmit={(e) => void submit(e)} className="card" aria-describedby={error ? 'sign-in-error' : undefined}>
        <label htmlFor="identifier">Email or username</label>
        <input id="identifier" autoComplete="username" value={identifier} onChange={(e) => setIdentifier(e.target.value)} required />
        <label htmlFor="password">Password</label>
        <input id="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
        {error ? (
          <p id="sign-in-error" role="alert" className="error">
            {error}
          </p>
        ) : null}
      </form>
    </main>
  );
}

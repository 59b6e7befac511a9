import { type ComponentType, lazy, Suspense, useSyncExternalStore } from 'react';
import { StepUpDialog } from './components/StepUpDialog';
import { Loading } from './components/ui';
import { api, getSession, onSessionChange, setSession } from './lib/api';
import { Link, navigate, useLocation } from './lib/router';
import { SignIn } from './pages/SignIn';

type Page = ComponentType<{ params: string[] }>;

/** Every page is its own chunk: the first load carries only the shell and the sign-in form. */
const page = (load: () => Promise<{ default: Page }>) => lazy(load);
const loadExecutions = () => import('./pages/Executions');
const Executions = page(loadExecutions);
// The landing page of a signed-in tab: fetch its chunk now, beside React's first render, not after it.
if (getSession() && /^\/(executions)?$/.test(window.location.pathname)) void loadExecutions();
const Execution = page(() => import('./pages/Execution'));
const Activities = page(() => import('./pages/Activities'));
const Editor = page(() => import('./pages/Editor'));
const RunActivity = page(() => import('./pages/RunActivity'));
const Documents = page(() => import('./pages/Documents'));
const Prompts = page(() => import('./pages/Prompts'));
const Webhooks = page(() => import('./pages/Webhooks'));
const Schedules = page(() => import('./pages/Schedules'));
const Credentials = page(() => import('./pages/Credentials'));
const Agents = page(() => import('./pages/Agents'));
const DataShield = page(() => import('./pages/DataShield'));
const Analytics = page(() => import('./pages/Analytics'));
const Audit = page(() => import('./pages/Audit'));

const ROUTES: [RegExp, Page][] = [
  [/^\/(?:executions)?$/, Executions],
  [/^\/executions\/(\d+)$/, Execution],
  [/^\/activities$/, Activities],
  [/^\/activities\/new$/, Editor],
  [/^\/activities\/(\d+)\/edit$/, Editor],
  [/^\/activities\/(\d+)\/run$/, RunActivity],
  [/^\/documents$/, Documents],
  [/^\/prompts$/, Prompts],
  [/^\/webhooks$/, Webhooks],
  [/^\/schedules$/, Schedules],
  [/^\/credentials$/, Credentials],
  [/^\/agents$/, Agents],
  [/^\/data-shield$/, DataShield],
  [/^\/analytics$/, Analytics],
  [/^\/audit$/, Audit],
];

const NAV: [string, string][] = [
  ['/executions', 'Executions'],
  ['/activities', 'Workflows'],
  ['/documents', 'Documents'],
  ['/prompts', 'Prompts'],
  ['/webhooks', 'Webhooks'],
  ['/schedules', 'Schedules'],
  ['/credentials', 'Credentials'],
  ['/agents', 'Agents & chatbots'],
  ['/data-shield', 'Data Shield'],
  ['/analytics', 'Analytics'],
  ['/audit', 'Audit log'],
];

function NotFound() {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        <Link to="/executions">Go to the executions</Link>
      </p>
    </>
  );
}

export function App() {
  const session = useSyncExternalStore(onSessionChange, getSession);
  const location = useLocation();
  const path = location.split('?')[0] ?? '/';
  if (!session) return <SignIn />;

  let Current: Page = NotFound;
  let params: string[] = [];
  for (const [re, p] of ROUTES) {
    const m = re.exec(path);
    if (m) {
      Current = p;
      params = m.slice(1);
      break;
    }
  }
  const signOut = async () => {
    try {
      await api.post('/auth/logout');
    } finally {
      setSession(null);
      navigate('/', true);
    }
  };
  const active = (to: string) => path === to || path.startsWith(`${to}/`) || (to === '/executions' && path === '/');

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Docflow</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={active(to) ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="who">
          <span>
            Signed in as <strong>{session.user.username}</strong>
          </span>
          <button type="button" className="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <Suspense fallback={<Loading what="the page" />}>
          <Current key={path} params={params} />
        </Suspense>
      </main>
      <StepUpDialog />
    </>
  );
}

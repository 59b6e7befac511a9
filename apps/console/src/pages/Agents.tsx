import { type FormEvent, useState } from 'react';
import { ErrorMessage, Loading, PageHeader, Section } from '../components/ui';
import { api, errorText, getSession } from '../lib/api';
import { useAction } from '../lib/use-action';
import { useData } from '../lib/use-data';

interface Agent {
  id: number;
  name: string;
  slug: string;
  goal?: string | null;
  model?: string;
  active?: boolean;
}

interface Chatbot {
  id: number;
  name: string;
  slug: string;
  active: boolean;
  query_count?: number;
}

interface Message {
  role: 'user' | 'assistant';
  content: string;
}

/** One chat: agents answer the owner's bearer token; chatbots need their key (shown once at creation). */
function ChatPanel({ title, send }: { title: string; send: (query: string, sessionId?: string) => Promise<{ answer: string; session_id?: string }> }) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [query, setQuery] = useState('');
  const [sessionId, setSessionId] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const q = query;
    setMessages((m) => [...m, { role: 'user', content: q }]);
    setQuery('');
    setBusy(true);
    try {
      const res = await send(q, sessionId);
      setSessionId(res.session_id ?? sessionId);
      setMessages((m) => [...m, { role: 'assistant', content: res.answer }]);
      setError(undefined);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title={title}>
      <div className="chat" aria-live="polite" aria-label="Conversation">
        {messages.map((m, i) => (
          <div key={i} className={`msg ${m.role}`}>
            <span className="visually-hidden">{m.role === 'user' ? 'You' : 'Answer'}: </span>
            {m.content}
          </div>
        ))}
      </div>
      <form onSubmit={(e) => void submit(e)} className="row">
        <label htmlFor={`chat-${title}`} className="visually-hidden">
          Message
        </label>
        <input id={`chat-${title}`} value={query} onChange={(e) => setQuery(e.target.value)} required placeholder="Ask something" />
        <button type="submit" disabled={busy}>
          Send
        </button>
      </form>
      <ErrorMessage error={error} />
    </Section>
  );
}

async function chatbotChat(slug: string, key: string, query: string, sessionId?: string): Promise<{ answer: string; session_id?: string }> {
  const res = await fetch(`/api/chatbots/${encodeURIComponent(slug)}/chat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Chatbot-Key': key },
    body: JSON.stringify({ query, ...(sessionId ? { session_id: sessionId } : {}) }),
  });
  const body = (await res.json()) as { answer?: string; session_id?: string; error?: { message: string } };
  if (!res.ok) throw new Error(body.error?.message ?? res.statusText);
  return { answer: body.answer ?? '', session_id: body.session_id };
}

export default function Agents() {
  const agents = useData((signal) => api.get<{ data: Agent[] }>('/agents', { signal }), []);
  const bots = useData((signal) => api.get<{ data: Chatbot[] }>('/chatbots', { signal }), []);
  const [agentName, setAgentName] = useState('');
  const [goal, setGoal] = useState('');
  const [botName, setBotName] = useState('');
  const [chatWith, setChatWith] = useState<{ kind: 'agent'; slug: string; name: string } | { kind: 'bot'; slug: string; name: string; key: string }>();
  const [shownKey, setShownKey] = useState<{ name: string; key: string }>();
  const action = useAction();

  const createAgent = async (e: FormEvent) => {
    e.preventDefault();
    if (await action.run(() => api.post('/agents', { data: { name: agentName, goal, conversational: true } }))) {
      setAgentName('');
      setGoal('');
      agents.reload();
    }
  };
  const createBot = async (e: FormEvent) => {
    e.preventDefault();
    await action.run(async () => {
      const res = await api.post<{ data: Chatbot & { api_key: string } }>('/chatbots', { data: { name: botName } });
      setShownKey({ name: res.data.name, key: res.data.api_key });
      setChatWith({ kind: 'bot', slug: res.data.slug, name: res.data.name, key: res.data.api_key });
      setBotName('');
      bots.reload();
    });
  };
  const regenerate = (kind: 'agents' | 'chatbots', item: { id: number; name: string; slug: string }) =>
    action.run(async () => {
      const res = await api.post<{ data: { api_key: string } }>(`/${kind}/${item.id}/regenerate-key`, {}, { stepUp: true });
      setShownKey({ name: item.name, key: res.data.api_key });
      if (kind === 'chatbots') setChatWith({ kind: 'bot', slug: item.slug, name: item.name, key: res.data.api_key });
    });

  return (
    <>
      <PageHeader title="Agents & chatbots" />
      <ErrorMessage error={action.error} />
      {shownKey ? (
        <div className="card" role="alert">
          <h2>Key of “{shownKey.name}”</h2>
          <p>Shown only now; it is stored hashed.</p>
          <p className="secret">{shownKey.key}</p>
          <button type="button" className="secondary" onClick={() => setShownKey(undefined)}>
            I have stored it
          </button>
        </div>
      ) : null}
      <div className="grid2">
        <div>
          <Section title="Agents">
            {agents.data ? (
              <ul>
                {agents.data.data.map((a) => (
                  <li key={a.id} className="row">
                    <strong>{a.name}</strong> <span className="muted">{a.goal}</span>
                    <button type="button" className="secondary" onClick={() => setChatWith({ kind: 'agent', slug: a.slug, name: a.name })} aria-label={`Chat with ${a.name}`}>
                      Chat
                    </button>
                    <button type="button" className="secondary" onClick={() => void regenerate('agents', a)} aria-label={`New key for ${a.name}`}>
                      New key
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <Loading what="agents" />
            )}
            <button type="button" className="secondary" onClick={() => setChatWith({ kind: 'agent', slug: 'composer', name: 'Composer' })}>
              Chat with the Composer
            </button>
            <form onSubmit={(e) => void createAgent(e)}>
              <label htmlFor="a-name">New agent’s name</label>
              <input id="a-name" value={agentName} onChange={(e) => setAgentName(e.target.value)} required />
              <label htmlFor="a-goal">Goal</label>
              <input id="a-goal" value={goal} onChange={(e) => setGoal(e.target.value)} />
              <button type="submit" disabled={action.busy}>
                Create agent
              </button>
            </form>
          </Section>
          <Section title="Chatbots">
            {bots.data ? (
              <ul>
                {bots.data.data.map((b) => (
                  <li key={b.id} className="row">
                    <strong>{b.name}</strong> <span className="muted">{b.query_count ?? 0} questions</span>
                    <button type="button" className="secondary" onClick={() => void regenerate('chatbots', b)} aria-label={`New key for ${b.name} and chat`}>
                      New key & chat
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <Loading what="chatbots" />
            )}
            <form onSubmit={(e) => void createBot(e)}>
              <label htmlFor="b-name">New chatbot’s name</label>
              <input id="b-name" value={botName} onChange={(e) => setBotName(e.target.value)} required />
              <button type="submit" disabled={action.busy}>
                Create chatbot
              </button>
            </form>
          </Section>
        </div>
        {chatWith ? (
          <ChatPanel
            key={`${chatWith.kind}-${chatWith.slug}`}
            title={`Chat with ${chatWith.name}`}
            send={(q, sid) =>
              chatWith.kind === 'agent'
                ? api.post<{ answer: string; session_id?: string }>(`/agents/${encodeURIComponent(chatWith.slug)}/public-chat`, { query: q, ...(sid ? { session_id: sid } : {}) })
                : chatbotChat(chatWith.slug, chatWith.key, q, sid)
            }
          />
        ) : (
          <p className="muted">{getSession() ? 'Pick an agent or a chatbot to chat with.' : ''}</p>
        )}
      </div>
    </>
  );
}

import { parseCreateAgent, parseMessage, parsePublicChat, parseUpdateAgent } from './agents.dto';
import { parseUpdateChatbot } from './chatbots/chatbots.dto';
import { parseCreateSquad } from './squads/squads.dto';

/** A 400 with this message listing exactly these problems. */
const refused = (message: string, errors: string[]) => expect.objectContaining({ status: 400, message, details: { errors } });

describe('agent bodies (parseBody)', () => {
  it('reads a new agent, wrapped or flat, trimming the name and dropping a null slug', () => {
    const body = { name: ' Helper ', slug: null, available_tools: ['a', 'a', 'b'], allowed_origins: [' example.com '] };
    const expected = { name: 'Helper', availableTools: ['a', 'b'], allowedOrigins: ['example.com'] };
    expect(parseCreateAgent({ data: body })).toEqual(expected);
    expect(parseCreateAgent(body)).toEqual(expected);
  });

  it('names each wrong field with its own message', () => {
    expect(() => parseCreateAgent({ temperature: 3, active: 'yes' })).toThrow(
      refused('Invalid agent', ['name: is required', 'temperature: must be a number from 0 to 2', 'active: must be true or false']),
    );
  });

  it('an update needs at least one field (a null slug is none)', () => {
    expect(() => parseUpdateAgent({ slug: null })).toThrow(expect.objectContaining({ status: 400, message: 'Invalid agent' }));
  });

  it('public chat takes the session from the query when the body has none', () => {
    expect(parsePublicChat({ query: ' hi ' }, 's-1')).toEqual({ query: 'hi', sessionId: 's-1', files: [] });
    expect(() => parsePublicChat({ query: 'hi', file_urls: [{ url: 'u' }, {}] }, undefined)).toThrow(refused('Invalid chat request', ['file_urls[1]: needs a url']));
  });

  it('a message defaults its role and metadata', () => {
    expect(parseMessage({ content: 'x', role: null })).toEqual({ role: 'user', content: 'x', metadata: {}, attachments: null });
  });
});

describe('chatbot and squad bodies (parseBody)', () => {
  it('a chatbot update names a bad rate limit', () => {
    expect(() => parseUpdateChatbot({ rate_limit: 0 })).toThrow(refused('Invalid chatbot', ['rate_limit: must be an integer from 1 to 100000 (questions a minute)']));
  });

  it('a squad reads its members and tasks, and names a bad task by index', () => {
    expect(parseCreateSquad({ name: 'S', agents: ['writer'], tasks: [{ id: 't1', description: 'd', agent_slug: 'writer' }] })).toEqual({
      name: 'S',
      agents: [{ agent_slug: 'writer', role: null }],
      tasks: [{ id: 't1', description: 'd', agent_slug: 'writer', depends_on: [], output_key: 't1', expected_output: null }],
    });
    expect(() => parseCreateSquad({ name: 'S', tasks: [{ id: 't1' }] })).toThrow(refused('Invalid squad', ['tasks[0]: description is required', 'tasks[0]: agent_slug is required']));
  });
});

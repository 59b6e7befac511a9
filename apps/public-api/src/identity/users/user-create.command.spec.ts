import { parseUserCreateArgs } from './user-create.command';

describe('parseUserCreateArgs', () => {
  it('reads email, username, password and --super-admin', () => {
    expect(parseUserCreateArgs(['--email', 'a@b.co', '--username', 'ann', '--password', 'Secret#123', '--super-admin'])).toEqual({
      ok: true,
      user: { email: 'a@b.co', username: 'ann', password: 'Secret#123', role: 'super_admin' },
    });
    expect(parseUserCreateArgs(['--email=a@b.co', '--username=ann', '--password=Secret#123'])).toMatchObject({ ok: true, user: { role: 'user' } });
  });

  it('names every missing argument and a short password', () => {
    expect(parseUserCreateArgs(['--password', 'short'])).toEqual({
      ok: false,
      errors: ['--email is required', '--username is required', '--password must be at least 8 characters'],
    });
  });

  it('refuses unknown options and stray words', () => {
    const unknown = parseUserCreateArgs(['--email', 'a@b.co', '--username', 'ann', '--password', 'Secret#123', '--admin']);
    expect(unknown.ok).toBe(false);
    expect(parseUserCreateArgs(['extra']).ok).toBe(false);
  });
});

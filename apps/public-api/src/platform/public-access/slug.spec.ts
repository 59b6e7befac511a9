import { SLUG_PATTERN, slugify } from './slug';

describe('slugify', () => {
  it('makes a lower-case, dash-separated slug of a display name', () => {
    expect(slugify('Support Bot!', 'bot')).toBe('support-bot');
    expect(slugify('  Équipe   Ventes – FR ', 'bot')).toBe('equipe-ventes-fr');
    expect(slugify('***', 'bot')).toBe('bot');
    expect(SLUG_PATTERN.test(slugify('x'.repeat(300), 'bot'))).toBe(true);
  });
});

import { originAllowed } from './origins';

describe('originAllowed', () => {
  it('accepts anything when the list is empty', () => {
    expect(originAllowed([], undefined, undefined)).toBe(true);
    expect(originAllowed([], 'https://evil.test', undefined)).toBe(true);
  });

  it('matches listed hosts and *.domain patterns against Origin, else Referer', () => {
    const allowed = ['app.example.com', '*.partner.io', 'https://portal.acme.test:8443'];
    expect(originAllowed(allowed, 'https://app.example.com', undefined)).toBe(true);
    expect(originAllowed(allowed, 'http://APP.example.com:3000', undefined)).toBe(true);
    expect(originAllowed(allowed, 'https://eu.partner.io', undefined)).toBe(true);
    expect(originAllowed(allowed, 'https://partner.io', undefined)).toBe(true);
    expect(originAllowed(allowed, 'https://portal.acme.test', undefined)).toBe(true);
    expect(originAllowed(allowed, undefined, 'https://app.example.com/forms/1?x=2')).toBe(true);
  });

  it('refuses other hosts, look-alikes, and requests that name no origin', () => {
    const allowed = ['app.example.com', '*.partner.io'];
    expect(originAllowed(allowed, 'https://app.example.com.evil.test', undefined)).toBe(false);
    expect(originAllowed(allowed, 'https://evilpartner.io', undefined)).toBe(false);
    expect(originAllowed(allowed, 'null', undefined)).toBe(false);
    expect(originAllowed(allowed, undefined, undefined)).toBe(false);
    expect(originAllowed(allowed, 'not a url', undefined)).toBe(false);
  });
});

import { OutboundRequestError } from './outbound-error';
import { AllowedHosts, assertUrlAllowed } from './url-policy';

function refusal(url: string, allowed: readonly string[] = []): OutboundRequestError {
  try {
    assertUrlAllowed(url, allowed);
  } catch (error) {
    if (error instanceof OutboundRequestError) return error;
    throw error;
  }
  throw new Error(`${url} was not refused`);
}

describe('assertUrlAllowed', () => {
  it.each([
    ['file:///etc/passwd', 'scheme "file:"'],
    ['gopher://example.com:70/_HELO', 'scheme "gopher:"'],
    ['ftp://example.com/x', 'scheme "ftp:"'],
    ['data:text/plain,hello', 'scheme "data:"'],
    ['javascript:alert(1)', 'scheme "javascript:"'],
    ['dict://example.com:11211/stat', 'scheme "dict:"'],
    ['ws://example.com/', 'scheme "ws:"'],
    ['not a url', 'Invalid URL'],
    ['https://user:secret@example.com/', 'embedded credentials'],
    ['https://token@example.com/', 'embedded credentials'],
    ['http://127.0.0.1/', '(loopback)'],
    ['http://2130706433/', '(loopback)'],
    ['http://0x7f000001/', '(loopback)'],
    ['http://0177.0.0.1/', '(loopback)'],
    ['http://127.1/', '(loopback)'],
    ['http://017700000001/', '(loopback)'],
    ['http://%31%32%37.0.0.1/', '(loopback)'],
    ['http://127.0.0.1./', '(loopback)'],
    ['http://[::1]/', '(loopback)'],
    ['http://[::ffff:127.0.0.1]/', '(ipv4Mapped loopback)'],
    ['http://[::ffff:7f00:1]/', '(ipv4Mapped loopback)'],
    ['http://[::127.0.0.1]/', '(notGlobalUnicast)'],
    ['http://[64:ff9b::10.0.0.1]/', '(nat64 private)'],
    ['http://[2002:a9fe:a9fe::]/', '(6to4 linkLocal)'],
    ['http://0.0.0.0/', '(unspecified)'],
    ['http://0/', '(unspecified)'],
    ['http://[::]/', '(unspecified)'],
    ['http://169.254.169.254/latest/meta-data/', '(linkLocal)'],
    ['http://10.0.0.1/', '(private)'],
    ['http://172.16.5.4/', '(private)'],
    ['http://192.168.0.1/', '(private)'],
    ['http://100.64.0.1/', '(carrierGradeNat)'],
    ['http://224.0.0.1/', '(multicast)'],
    ['http://255.255.255.255/', '(broadcast)'],
    ['http://[fe80::1]/', '(linkLocal)'],
    ['http://[fd00::1]/', '(uniqueLocal)'],
    ['http://localhost/', '(loopback)'],
    ['http://LOCALHOST.:8080/', '(loopback)'],
    ['http://api.localhost/', '(loopback)'],
  ])('refuses %s as a configuration error (%s)', (url, fragment) => {
    const error = refusal(url);
    expect(error.kind).toBe('configuration');
    expect(error.retryable).toBe(false);
    // Address refusals share one text that does not name the address class.
    if (fragment.startsWith('(')) expect(error.message).toBe(`Destination ${new URL(url).hostname} is not allowed or does not resolve to a public address`);
    else expect(error.message).toContain(fragment);
  });

  it('keeps credentials out of the refusal message', () => {
    expect(refusal('https://user:secret@example.com/').message).not.toContain('secret');
  });

  it('lets public addresses and host names through, marking literals', () => {
    expect(assertUrlAllowed('https://8.8.8.8/dns', [])).toMatchObject({ exempt: false, literal: true });
    expect(assertUrlAllowed('https://[2606:4700:4700::1111]/', [])).toMatchObject({ exempt: false, literal: true });
    const named = assertUrlAllowed('https://api.example.com/v1?q=1', []);
    expect(named).toMatchObject({ exempt: false, literal: false });
    expect(named.url.href).toBe('https://api.example.com/v1?q=1');
  });

  it('exempts an exact host:port entry and nothing near it', () => {
    const allowed = ['127.0.0.1:8080', 'LOCALHOST:9000', '[::1]:7000'];
    expect(assertUrlAllowed('http://127.0.0.1:8080/x', allowed).exempt).toBe(true);
    expect(assertUrlAllowed('http://2130706433:8080/x', allowed).exempt).toBe(true);
    expect(assertUrlAllowed('http://localhost:9000/', allowed).exempt).toBe(true);
    expect(assertUrlAllowed('http://[::1]:7000/', allowed).exempt).toBe(true);
    expect(refusal('http://127.0.0.1:8081/', allowed).kind).toBe('configuration');
    expect(refusal('http://127.0.0.1/', allowed).kind).toBe('configuration');
    expect(refusal('http://localhost:9001/', allowed).kind).toBe('configuration');
    expect(refusal('http://[::1]:7001/', allowed).kind).toBe('configuration');
  });

  it('still refuses a bad scheme or credentials on an allowed host', () => {
    expect(refusal('ftp://127.0.0.1:8080/', ['127.0.0.1:8080']).message).toContain('scheme');
    expect(refusal('http://a:b@127.0.0.1:8080/', ['127.0.0.1:8080']).message).toContain('credentials');
  });
});

describe('AllowedHosts', () => {
  it('matches a port-less entry on the default port of the scheme only', () => {
    const hosts = new AllowedHosts(['intranet.corp', ' 10.1.2.3 ']);
    expect(hosts.has(new URL('http://intranet.corp/'))).toBe(true);
    expect(hosts.has(new URL('https://intranet.corp/'))).toBe(true);
    expect(hosts.has(new URL('http://intranet.corp:80/'))).toBe(true);
    expect(hosts.has(new URL('http://intranet.corp:443/'))).toBe(false);
    expect(hosts.has(new URL('http://intranet.corp:8080/'))).toBe(false);
    expect(hosts.has(new URL('http://10.1.2.3/'))).toBe(true);
    expect(hosts.has(new URL('http://sub.intranet.corp/'))).toBe(false);
    expect(hosts.size).toBe(2);
  });

  it('skips empty entries and rejects malformed ones', () => {
    expect(new AllowedHosts(['', '  ']).size).toBe(0);
    expect(() => new AllowedHosts(['http://x.com'])).toThrow('Invalid allowed host entry');
    expect(() => new AllowedHosts(['x.com:99999'])).toThrow('port out of range');
    expect(() => new AllowedHosts(['x.com:0'])).toThrow('port out of range');
    expect(() => new AllowedHosts(['x.com/path:80'])).toThrow('Invalid allowed host entry');
    expect(() => new AllowedHosts(['user@x.com:80'])).toThrow('Invalid allowed host entry');
  });
});

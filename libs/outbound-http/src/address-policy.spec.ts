import { describeForbiddenAddress, isForbiddenAddress } from './address-policy';

describe('isForbiddenAddress', () => {
  const forbidden: Array<[string, string]> = [
    // IPv4 special-purpose ranges
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.1', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    // numeric spellings of loopback, as inet_aton reads them
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['127.1', 'loopback'],
    ['017700000001', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['012.0.0.1', 'private'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['2001::1', 'teredo'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    ['::2', 'notGlobalUnicast'],
    // IPv4-mapped and IPv4-compatible
    ['::ffff:127.0.0.1', 'ipv4Mapped loopback'],
    ['::ffff:7f00:1', 'ipv4Mapped loopback'],
    ['[::ffff:127.0.0.1]', 'ipv4Mapped loopback'],
    ['0:0:0:0:0:ffff:a00:1', 'ipv4Mapped private'],
    ['::ffff:169.254.169.254', 'ipv4Mapped linkLocal'],
    ['::ffff:0.0.0.0', 'ipv4Mapped unspecified'],
    ['::127.0.0.1', 'notGlobalUnicast'],
    ['::7f00:1', 'notGlobalUnicast'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    // NAT64 and 6to4 embedding a forbidden IPv4
    ['64:ff9b::127.0.0.1', 'nat64 loopback'],
    ['64:ff9b::a00:1', 'nat64 private'],
    ['64:ff9b::a9fe:a9fe', 'nat64 linkLocal'],
    ['64:ff9b:1::8.8.8.8', 'rfc6052'],
    ['2002:7f00:1::', '6to4 loopback'],
    ['2002:a00:1::1', '6to4 private'],
    ['2002:c0a8:101::', '6to4 private'],
    ['2002:a9fe:a9fe::1', '6to4 linkLocal'],
    // not addresses at all: refused
    ['', 'invalid'],
    ['localhost', 'invalid'],
    ['example.com', 'invalid'],
    ['1.2.3.4.5', 'invalid'],
    ['256.0.0.1', 'invalid'],
    ['fe80::1%eth0', 'invalid'],
    ['2606:4700::1%eth0', 'invalid'],
  ];

  it.each(forbidden)('refuses %s (%s)', (ip, reason) => {
    expect(isForbiddenAddress(ip)).toBe(true);
    expect(describeForbiddenAddress(ip)).toBe(reason);
  });

  const allowed = [
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.1',
    '172.15.255.255',
    '172.32.0.1',
    '192.167.255.255',
    '192.169.0.1',
    '169.253.255.255',
    '11.0.0.1',
    '223.255.255.254',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '[::ffff:808:808]',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ];

  it.each(allowed)('allows public unicast %s', (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
    expect(describeForbiddenAddress(ip)).toBeNull();
  });
});

import ipaddr from 'ipaddr.js';

type ParsedAddress = ipaddr.IPv4 | ipaddr.IPv6;

/** RFC 6052 well-known NAT64 prefix 64:ff9b::/96 (the local-use /48 is refused outright). */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parse('64:ff9b::');

/**
 * Parses an address the way a permissive resolver (inet_aton) would: besides
 * canonical forms this accepts `127.1`, `0x7f000001`, `2130706433` and octal
 * `0177.0.0.1`, and IPv6 in brackets. Returns null when it is not an address.
 */
function parseAddress(ip: string): ParsedAddress | null {
  let bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  try {
    // ipaddr.js reads `::1.2.3.4` as IPv4-mapped; the WHATWG parser gets
    // IPv6 text right, so IPv6 goes through it first (zone ids are refused).
    if (bare.includes(':')) bare = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
    return ipaddr.isValid(bare) ? ipaddr.parse(bare) : null;
  } catch {
    return null;
  }
}

function v4FromParts(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function describeV4(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : range;
}

function describeV6(address: ipaddr.IPv6): string | null {
  const parts = address.parts;
  const [p0 = 0, p1 = 0, p2 = 0, , , , p6 = 0, p7 = 0] = parts;
  const range: string = address.range();
  // Forms that embed an IPv4 address are judged by the address they embed.
  if (range === 'ipv4Mapped') {
    const inner = describeV4(address.toIPv4Address());
    return inner === null ? null : `ipv4Mapped ${inner}`;
  }
  if (address.match(NAT64_WELL_KNOWN, 96)) {
    const inner = describeV4(v4FromParts(p6, p7));
    return inner === null ? null : `nat64 ${inner}`;
  }
  if (range === '6to4') {
    const inner = describeV4(v4FromParts(p1, p2));
    return inner === null ? null : `6to4 ${inner}`;
  }
  // Only global unicast (2000::/3) outside every special-purpose block passes;
  // this also refuses IPv4-compatible `::a.b.c.d`, rfc6145 and local-use NAT64.
  if ((p0 & 0xe000) !== 0x2000) return range === 'unicast' ? 'notGlobalUnicast' : range;
  return range === 'unicast' ? null : range;
}

/**
 * Why an address may not be contacted (`loopback`, `private`, `ipv4Mapped
 * loopback`, ...), or null when it is a public unicast address. Anything that
 * does not parse as an address is refused (`invalid`).
 */
export function describeForbiddenAddress(ip: string): string | null {
  const address = parseAddress(ip.trim());
  if (address === null) return 'invalid';
  return address.kind() === 'ipv4' ? describeV4(address as ipaddr.IPv4) : describeV6(address as ipaddr.IPv6);
}

/**
 * True unless `ip` is a public unicast address: IPv4 range `unicast`, IPv6
 * global unicast, or an IPv4-mapped / NAT64 / 6to4 address embedding one.
 */
export function isForbiddenAddress(ip: string): boolean {
  return describeForbiddenAddress(ip) !== null;
}

/** True when `host` (brackets allowed) is an IP literal in any spelling. */
export function isIpLiteral(host: string): boolean {
  return parseAddress(host) !== null;
}

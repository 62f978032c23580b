// Every IP address Easel reads (proxy peers, EASEL_PROXY_TRUSTED_CIDRS,
// resolved Connection addresses, rate-limit networks) is parsed here, on
// ipaddr.js. Parsing is strict: only canonical dotted quads for IPv4 (no
// `127.1`, `0x7f.1`, `2130706433` or leading zeros, which other parsers read
// as other addresses) and IPv6 without a zone id.
import ipaddr from 'ipaddr.js';

/** Four octets of a strict dotted quad, or null. */
export function parseIPv4(s: string): number[] | null {
  return ipaddr.IPv4.isValidFourPartDecimal(s) ? ipaddr.IPv4.parse(s).toByteArray() : null;
}

/** Sixteen bytes, or null. Brackets are allowed; zone ids (`%eth0`) are not. */
export function parseIPv6(input: string): Uint8Array | null {
  let s = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  if (s.includes('%')) return null;
  // ipaddr.js reads `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`; written as hextets the tail means what RFC 4291 says.
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4(tail);
    if (!v4) return null;
    s = `${s.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  if (!ipaddr.IPv6.isValid(s)) return null;
  return Uint8Array.from(ipaddr.IPv6.parse(s).toByteArray());
}

export function isIpAddress(s: string): boolean {
  return parseIPv4(s) !== null || parseIPv6(s) !== null;
}

/** An address or `address/prefix`, IPv4 or IPv6 (EASEL_PROXY_TRUSTED_CIDRS entries). */
export function isCidrOrAddress(entry: string): boolean {
  return entry.includes('/') ? ipaddr.isValidCIDR(entry) && !entry.includes('%') : isIpAddress(entry);
}

/** An address as compared: IPv4-mapped IPv6 becomes IPv4, brackets go. */
function comparable(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const v4 = parseIPv4(ip);
  if (v4) return new ipaddr.IPv4(v4);
  const v6 = parseIPv6(ip);
  if (!v6) return null;
  const addr = ipaddr.fromByteArray(Array.from(v6)) as ipaddr.IPv6;
  return addr.isIPv4MappedAddress() ? addr.toIPv4Address() : addr;
}

export function ipInCidr(ip: string, cidr: string): boolean {
  const addr = comparable(ip);
  if (!addr || !isCidrOrAddress(cidr)) return false;
  const [net, bits] = cidr.includes('/') ? ipaddr.parseCIDR(cidr) : [ipaddr.parse(cidr), cidr.includes(':') ? 128 : 32];
  const base = net.kind() === 'ipv6' && (net as ipaddr.IPv6).isIPv4MappedAddress() ? (net as ipaddr.IPv6).toIPv4Address() : net;
  const prefix = base === net ? bits : bits - 96;
  return addr.kind() === base.kind() && prefix >= 0 && addr.match(base, prefix);
}

export function ipInAny(ip: string | null, cidrs: string[]): boolean {
  return ip !== null && cidrs.some((c) => ipInCidr(ip, c));
}

/**
 * The network a caller is counted under: an IPv4 address as itself, an IPv6
 * one as its /64 (a host there has the whole /64 to rotate through).
 */
export function networkOf(ip: string | null): string {
  const addr = ip === null ? null : comparable(ip);
  if (!addr) return ip ?? 'unknown';
  if (addr.kind() === 'ipv4') return addr.toString();
  const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/** The address as it goes in a URL's host: IPv6 in brackets. */
export function urlHostOf(address: string): string {
  return parseIPv4(address) ? address : `[${address.replace(/^\[|\]$/g, '')}]`;
}

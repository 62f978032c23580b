// Which addresses a Connection may reach (spec "Connections rules" 5): only
// public unicast. Everything else is named by the range it falls in, so a
// refusal can say why without showing the address. Pure: no IO.
//
// IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64 well-known
// prefix, 6to4, Teredo) are judged by the IPv4 address inside, so
// ::ffff:127.0.0.1 is loopback. The local-use NAT64 prefix 64:ff9b:1::/48 is
// refused outright: where its IPv4 sits depends on a local prefix length.

export type AddressVerdict = { public: true } | { public: false; range: string };

import { parseIPv4, parseIPv6 } from '../net/ip.ts';

const PUBLIC: AddressVerdict = { public: true };
const refused = (range: string): AddressVerdict => ({ public: false, range });

type Range4 = [base: [number, number, number, number], bits: number, range: string];

const V4_RANGES: Range4[] = [
  [[0, 0, 0, 0], 8, 'this-network'],
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'shared-address-space'],
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'],
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'ietf-protocol-assignments'],
  [[192, 0, 2, 0], 24, 'documentation'],
  [[192, 88, 99, 0], 24, '6to4-relay-anycast'],
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'benchmarking'],
  [[198, 51, 100, 0], 24, 'documentation'],
  [[203, 0, 113, 0], 24, 'documentation'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[255, 255, 255, 255], 32, 'broadcast'],
  [[240, 0, 0, 0], 4, 'reserved'],
];

function inPrefix(bytes: ArrayLike<number>, base: ArrayLike<number>, bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const bit = 7 - (i % 8);
    if (((bytes[i >> 3]! >> bit) & 1) !== ((base[i >> 3]! >> bit) & 1)) return false;
  }
  return true;
}

export function classifyIPv4(octets: ArrayLike<number>): AddressVerdict {
  for (const [base, bits, range] of V4_RANGES) if (inPrefix(octets, base, bits)) return refused(range);
  return PUBLIC;
}

/** An IPv6 prefix written as hextets (the rest zero). */
function v6(hextets: number[]): Uint8Array {
  const b = new Uint8Array(16);
  hextets.forEach((h, i) => {
    b[2 * i] = h >> 8;
    b[2 * i + 1] = h & 0xff;
  });
  return b;
}

/** Ranges checked after the embedded-IPv4 forms; the first match names the refusal. */
const V6_RANGES: Array<[Uint8Array, number, string]> = [
  [v6([0x64, 0xff9b, 1]), 48, 'nat64-local-use'],
  [v6([0x100]), 64, 'discard-only'],
  [v6([0x2001, 0xdb8]), 32, 'documentation'],
  [v6([0x3fff]), 20, 'documentation'],
  [v6([0x2001, 0x2]), 48, 'benchmarking'],
  // IETF protocol assignments (ORCHID, AMT, …); Teredo (2001::/32) is judged before this.
  [v6([0x2001]), 23, 'ietf-protocol-assignments'],
  [v6([0x5f00]), 16, 'segment-routing'],
  [v6([0xfc00]), 7, 'unique-local'],
  [v6([0xfe80]), 10, 'link-local'],
  [v6([0xfec0]), 10, 'site-local'],
  [v6([0xff00]), 8, 'multicast'],
];

const GLOBAL_UNICAST = v6([0x2000]);

export function classifyIPv6(b: Uint8Array): AddressVerdict {
  const zeroUpTo = (n: number) => b.subarray(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return refused('unspecified');
  if (zeroUpTo(15) && b[15] === 1) return refused('loopback');
  const embedded = (from: number, range: string, xor = 0): AddressVerdict => {
    const inner = classifyIPv4(Array.from(b.subarray(from, from + 4), (x) => x ^ xor));
    return inner.public ? PUBLIC : refused(`${range}:${inner.range}`);
  };
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return embedded(12, 'ipv4-mapped');
  if (zeroUpTo(12)) return embedded(12, 'ipv4-compatible');
  if (inPrefix(b, v6([0x64, 0xff9b]), 96)) return embedded(12, 'nat64');
  if (inPrefix(b, v6([0x2002]), 16)) return embedded(2, '6to4');
  if (inPrefix(b, v6([0x2001, 0]), 32)) {
    // Teredo: the server's address in bits 32-63, the client's (inverted) in the last 32.
    const server = embedded(4, 'teredo-server');
    return server.public ? embedded(12, 'teredo-client', 0xff) : server;
  }
  for (const [base, bits, range] of V6_RANGES) if (inPrefix(b, base, bits)) return refused(range);
  if (!inPrefix(b, GLOBAL_UNICAST, 3)) return refused('reserved');
  return PUBLIC;
}

/** An answer that is not a canonical IPv4 or IPv6 address is refused too (never guessed at). */
export function classifyAddress(address: string): AddressVerdict {
  const four = parseIPv4(address);
  if (four) return classifyIPv4(four);
  const six = parseIPv6(address);
  if (six) return classifyIPv6(six);
  return refused('not-an-address');
}

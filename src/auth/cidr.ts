// IPv4/IPv6 CIDR matching for EASEL_PROXY_TRUSTED_CIDRS.

function ipv4ToBigInt(ip: string): bigint | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  let n = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || Number(p) > 255) return null;
    n = (n << 8n) | BigInt(Number(p));
  }
  return n;
}

function ipv6ToBigInt(ip: string): bigint | null {
  let text = ip.toLowerCase();
  const v4tail = text.match(/^(.*:)(\d+\.\d+\.\d+\.\d+)$/);
  if (v4tail) {
    const v4 = ipv4ToBigInt(v4tail[2]!);
    if (v4 === null) return null;
    text = v4tail[1]! + ((v4 >> 16n) & 0xffffn).toString(16) + ':' + (v4 & 0xffffn).toString(16);
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let n = 0n;
  for (const g of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    n = (n << 16n) | BigInt(parseInt(g, 16));
  }
  return n;
}

/** Parses an address into (bits, value); IPv4-mapped IPv6 is treated as IPv4. */
export function parseIp(ip: string): { bits: 32 | 128; value: bigint } | null {
  const v4 = ipv4ToBigInt(ip);
  if (v4 !== null) return { bits: 32, value: v4 };
  const v6 = ipv6ToBigInt(ip.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  if (v6 === null) return null;
  if (v6 >> 32n === 0xffffn) return { bits: 32, value: v6 & 0xffffffffn };
  return { bits: 128, value: v6 };
}

export function ipInCidr(ip: string, cidr: string): boolean {
  const [base, prefixText] = cidr.split('/');
  const addr = parseIp(ip);
  const net = parseIp(base ?? '');
  if (!addr || !net || addr.bits !== net.bits) return false;
  const prefix = prefixText === undefined ? net.bits : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > net.bits) return false;
  const shift = BigInt(net.bits - prefix);
  return addr.value >> shift === net.value >> shift;
}

export function ipInAny(ip: string | null, cidrs: string[]): boolean {
  return ip !== null && cidrs.some((c) => ipInCidr(ip, c));
}

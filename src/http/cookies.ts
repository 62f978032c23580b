/**
 * Every value sent under `name`, in header order. A sibling canvas host can
 * plant ("toss") a cookie of the same name with a longer Path or a narrower
 * Domain, which browsers send first: credential readers look at them all
 * instead of trusting the first.
 */
export function cookieValues(header: string | null, name: string): string[] {
  const out: string[] = [];
  if (!header || !header.includes(name)) return out;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(';', start);
    if (end < 0) end = header.length;
    const part = header.slice(start, end);
    const eq = part.indexOf('=');
    if (eq >= 0 && part.slice(0, eq).trim() === name) out.push(cookieValue(part.slice(eq + 1).trim()));
    start = end + 1;
  }
  return out;
}

function cookieValue(raw: string): string {
  const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  // Most values (session tokens) have nothing to decode.
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export interface CookieOptions {
  maxAgeSeconds?: number;
  secure: boolean;
  domain?: string | null;
  httpOnly?: boolean;
  sameSite?: 'Lax' | 'Strict' | 'None';
  path?: string;
}

export function serializeCookie(name: string, value: string, o: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${o.path ?? '/'}`];
  if (o.maxAgeSeconds !== undefined) parts.push(`Max-Age=${o.maxAgeSeconds}`);
  if (o.domain) parts.push(`Domain=${o.domain}`);
  if (o.httpOnly ?? true) parts.push('HttpOnly');
  parts.push(`SameSite=${o.sameSite ?? 'Lax'}`);
  if (o.secure) parts.push('Secure');
  return parts.join('; ');
}

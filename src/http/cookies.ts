/** Name → value of a Cookie header; the first of a name wins. Runs on every request, so it scans instead of splitting. */
export function parseCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  let start = 0;
  while (start < header.length) {
    let end = header.indexOf(';', start);
    if (end < 0) end = header.length;
    // Search '=' in this pair only: searching the rest of the header would make many '='-less pairs quadratic.
    const part = header.slice(start, end);
    const eq = part.indexOf('=');
    if (eq >= 0) {
      const name = part.slice(0, eq).trim();
      if (name && !out.has(name)) out.set(name, cookieValue(part.slice(eq + 1).trim()));
    }
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

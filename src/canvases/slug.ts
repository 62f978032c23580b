// Canvas slugs: one DNS label (they become subdomains in subdomain mode) that
// must not shadow the instance's own paths.
import { AppError } from '../errors.ts';

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{1,61})[a-z0-9]$/;

/** Paths and host names the instance uses or may use; shorter ones (c, v1) fail SLUG anyway. */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  'api',
  'auth',
  'sdk',
  'v1',
  'v2',
  'c',
  'admin',
  'healthz',
  'mcp',
  'static',
  'assets',
  'www',
  'dashboard',
  'login',
  'logout',
  'signin',
  'signup',
  'app',
  'public',
  'easel',
  'help',
  'docs',
  'status',
  'settings',
  'account',
  'accounts',
  'oauth',
  'oidc',
  'callback',
  'sso',
  'mail',
  'smtp',
  'imap',
  'ftp',
  'cdn',
  'localhost',
  'favicon',
  'robots',
  'system',
  'internal',
  'root',
  'support',
  'billing',
]);

/** `hostLabels`: the instance's own host labels (./host-labels.ts), reserved too. */
export function isValidSlug(slug: string, hostLabels: readonly string[] = []): boolean {
  return SLUG.test(slug) && !RESERVED_SLUGS.has(slug) && !hostLabels.includes(slug);
}

/**
 * A given slug (create or PATCH): 400 INVALID_BODY with reason invalid_slug
 * when it breaks the rules or names one of the instance's own hosts.
 */
export function checkSlug(slug: string, hostLabels: readonly string[] = []): string {
  if (!SLUG.test(slug)) {
    throw new AppError('INVALID_BODY', 'slug: 3-63 lowercase letters, digits and hyphens, starting and ending with a letter or digit', {
      reason: 'invalid_slug',
    });
  }
  if (RESERVED_SLUGS.has(slug) || hostLabels.includes(slug))
    throw new AppError('INVALID_BODY', `slug: "${slug}" is reserved`, { reason: 'invalid_slug' });
  return slug;
}

/** The slug a title suggests: lowercase ASCII, every other run of characters a hyphen (may still be short or reserved). */
export function slugBase(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 56)
    .replace(/-+$/, '');
}

/**
 * Candidates for a generated slug: the title's own slug first, then the same
 * with random suffixes (a base that is short, empty or reserved never goes bare).
 */
export function* slugCandidates(title: string, random: () => string, hostLabels: readonly string[] = []): Generator<string> {
  const base = slugBase(title) || 'canvas';
  if (isValidSlug(base, hostLabels)) yield base;
  for (;;) {
    const candidate = `${base}-${random()}`;
    if (isValidSlug(candidate, hostLabels)) yield candidate;
  }
}

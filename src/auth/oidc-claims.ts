// Reading who signed in from OIDC claims: the ID token's first, UserInfo's
// for what it lacks (OpenID Connect Core 5.4 lets a provider put the scope
// claims in either). Values come from the provider, so each is checked and
// bounded here before Easel keeps it.
import { EMAIL } from './users.ts';

export type Claims = Record<string, unknown>;

/** More groups than this is no real directory's answer: the claim is ignored whole rather than scanned. */
export const MAX_GROUPS = 1000;
/** A group name longer than this is ignored (EASEL_OIDC_ADMIN_GROUPS allows the same length). */
export const MAX_GROUP_LENGTH = 256;

export interface ClaimNames {
  email: string;
  name: string;
  groups: string;
  /** Groups are read only when some of them make admins. */
  adminGroups: readonly string[];
}

/** The claims Easel reads; UserInfo is asked only when one of them is not in the ID token. */
export function missingFromIdToken(idToken: Claims, names: ClaimNames): boolean {
  const needed = [names.email, names.name, ...(names.adminGroups.length > 0 ? [names.groups] : [])];
  return needed.some((claim) => idToken[claim] === undefined);
}

export type Reading =
  | { ok: true; email: string; name: string | null; adminGroups: string[] }
  | { ok: false; problem: 'no-email' | 'not-an-email' | 'unverified' };

/** The person as the claims describe them; each claim from the ID token when it has it, else from UserInfo. */
export function readIdentity(idToken: Claims, userinfo: Claims | null, names: ClaimNames): Reading {
  const sourceOf = (claim: string): Claims => (idToken[claim] !== undefined || !userinfo ? idToken : userinfo);
  const emailSource = sourceOf(names.email);
  const rawEmail = emailSource[names.email];
  if (typeof rawEmail !== 'string' || rawEmail.trim() === '') return { ok: false, problem: 'no-email' };
  const email = rawEmail.trim();
  // Entra ID's upn or preferred_username is often, but not always, an address.
  if (!EMAIL.test(email)) return { ok: false, problem: 'not-an-email' };
  // email_verified speaks for the email given beside it.
  if (emailSource.email_verified === false) return { ok: false, problem: 'unverified' };
  const name = sourceOf(names.name)[names.name];
  const groups = names.adminGroups.length > 0 ? groupsOf(sourceOf(names.groups)[names.groups]) : [];
  return {
    ok: true,
    email,
    name: typeof name === 'string' ? name : null,
    adminGroups: groups.filter((g) => names.adminGroups.includes(g)),
  };
}

/** A groups claim as a list: an array of names or one name; anything else, or an absurd size, counts as no groups. */
export function groupsOf(value: unknown): string[] {
  const usable = (g: unknown): g is string => typeof g === 'string' && g.length > 0 && g.length <= MAX_GROUP_LENGTH;
  if (usable(value)) return [value];
  if (!Array.isArray(value) || value.length > MAX_GROUPS) return [];
  return value.filter(usable);
}

// Where a page whose session is gone sends its visitor to sign in and come
// back: the canvas host's own sign-in (subdomain mode), else the instance's
// sign-in page with the page as returnTo (path mode).

interface PageLocation {
  origin: string;
  pathname: string;
  search: string;
  hash: string;
}

export function signInUrlFor(page: PageLocation | undefined): string | null {
  if (!page) return null;
  const here = page.pathname + page.search + page.hash;
  if (/^\/c\/[^/]+/.test(page.pathname)) return `${page.origin}/auth/login?returnTo=${encodeURIComponent(here)}`;
  return `${page.origin}/__easel/signin?next=${encodeURIComponent(here)}`;
}

/** The sign-in URL for the page the SDK runs in (null outside a browser). */
export function currentSignInUrl(): string | null {
  return signInUrlFor((globalThis as { location?: PageLocation }).location);
}

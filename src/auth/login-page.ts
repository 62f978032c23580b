import type { Config } from '../config.ts';
import { canvasSlugFromHost } from '../http/canvas-host.ts';
import { cardPage } from '../http/card-page.ts';
import { escapeHtml } from '../http/respond.ts';
import { pathWithin, suspiciousTarget } from '../http/same-origin-path.ts';

/** A page with one sign-in card: a heading and a sentence (the CLI's loopback callback answers with it). */
export function signInCardPage(title: string, heading: string, text: string): string {
  return cardPage({ title, body: `<h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p>` });
}

/** The dev-mode sign-in form: posts JSON to /auth/dev/login, then goes to returnTo. */
export function devLoginPage(returnTo: string): string {
  return cardPage({
    title: 'Sign in',
    body: `<form id="f"><h1>Sign in to Easel</h1>
<p>Easel publishes your team's small web apps and sites behind your organisation's sign-in.</p>
<p class="warn">Development sign-in: anyone can sign in as anyone.</p>
<label for="email">Email</label><input id="email" name="email" type="email" required maxlength="320" autocomplete="email">
<label for="name">Name</label><input id="name" name="name" maxlength="200" autocomplete="name">
<button>Sign in</button><p class="err" id="err" role="alert"></p></form>`,
    script: `
const returnTo = ${JSON.stringify(returnTo).replace(/</g, '\\u003c')};
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = JSON.stringify({ email: e.target.email.value, name: e.target.name.value || undefined });
  const err = document.getElementById('err');
  let r;
  try {
    r = await fetch('/auth/dev/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body, credentials: 'include' });
  } catch {
    err.textContent = 'Could not reach Easel: check your connection and try again.';
    return;
  }
  if (r.ok) return void (location.href = returnTo);
  // The server's own words say what to change (an address it does not take, a name too long).
  const refusal = await r.json().catch(() => null);
  err.textContent = 'Could not sign in: ' + (refusal && typeof refusal.message === 'string' ? refusal.message : 'the server answered ' + r.status) + '.';
});
`,
  });
}

export function proxyLoginPage(): string {
  return cardPage({
    title: 'Sign in',
    body: `<h1>Sign in</h1><p>${escapeHtml("This Easel instance signs you in through your organization's proxy. Reload the page through it.")}</p>`,
  });
}

/**
 * Where to go after sign-in: a path on the dashboard's origin (resolved by
 * the URL parser and compared by origin, src/http/same-origin-path.ts), or
 * (subdomain mode) an absolute URL on a canvas host of this instance with
 * the base URL's scheme. Anything else — other sites included — falls back to "/".
 */
export function safeReturnTo(value: string | null | undefined, config: Pick<Config, 'urlMode' | 'canvasHost' | 'baseUrl'>): string {
  const path = pathWithin(value, `${new URL(config.baseUrl).origin}/`);
  if (path !== null) return path;
  if (!value || suspiciousTarget(value)) return '/';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return '/';
  }
  const sameScheme = url.protocol === new URL(config.baseUrl).protocol;
  if (!sameScheme || url.username || url.password || canvasSlugFromHost(config, url.host) === null) return '/';
  return url.href;
}

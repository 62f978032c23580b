import type { Config } from '../config.ts';
import { canvasSlugFromHost } from '../http/canvas-host.ts';
import { escapeHtml } from '../http/respond.ts';
import { pathWithin, suspiciousTarget } from '../http/same-origin-path.ts';

/** The sign-in card's look, shared by the dev sign-in form and the CLI's loopback answer page. */
const CARD_STYLE = `body{font:16px/1.5 system-ui,sans-serif;display:grid;place-items:center;min-height:100vh;margin:0;background:#f6f5f2;color:#222}
form,.card{background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0001;width:min(22rem,90vw)}`;

/** A page with one sign-in card: a heading and a sentence (the CLI's loopback callback answers with it). */
export function signInCardPage(title: string, heading: string, text: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
${CARD_STYLE}
</style></head><body>
<div class="card"><h1>${escapeHtml(heading)}</h1><p>${escapeHtml(text)}</p></div>
</body></html>`;
}

/** The dev-mode sign-in form: posts JSON to /auth/dev/login, then goes to returnTo. */
export function devLoginPage(returnTo: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in · Easel</title>
<style>
${CARD_STYLE}
label{display:block;margin:.75rem 0 .25rem;font-size:.9rem}input{width:100%;box-sizing:border-box;padding:.5rem;font:inherit}
button{margin-top:1rem;width:100%;padding:.6rem;font:inherit;background:#222;color:#fff;border:0;border-radius:6px;cursor:pointer}
.warn{font-size:.8rem;color:#8a5a00}.err{color:#b00020;font-size:.9rem}
</style></head><body>
<form id="f"><h1>Sign in to Easel</h1>
<p class="warn">Development sign-in: anyone can sign in as anyone.</p>
<label for="email">Email</label><input id="email" name="email" type="email" required autocomplete="email">
<label for="name">Name</label><input id="name" name="name" autocomplete="name">
<button>Sign in</button><p class="err" id="err" role="alert"></p></form>
<script>
const returnTo = ${JSON.stringify(returnTo).replace(/</g, '\\u003c')};
document.getElementById('f').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = JSON.stringify({ email: e.target.email.value, name: e.target.name.value || undefined });
  const r = await fetch('/auth/dev/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body, credentials: 'include' });
  if (r.ok) location.href = returnTo; else document.getElementById('err').textContent = 'Sign-in failed (' + r.status + ')';
});
</script></body></html>`;
}

export function proxyLoginPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in · Easel</title></head>
<body><p>${escapeHtml("This Easel instance signs you in through your organization's proxy. Reload the page through it.")}</p></body></html>`;
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

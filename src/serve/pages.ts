import { cardPage } from '../http/card-page.ts';
import { escapeHtml } from '../http/respond.ts';

/**
 * Easel's own small pages on canvas URLs: refusals, the password form, the
 * missing-page fallback. `code` is machine-readable in a meta tag (clients
 * and tests branch on it, never on the prose).
 */
function page(code: string, title: string, body: string): string {
  return cardPage({ title, body, code, head: '<meta name="robots" content="noindex">' });
}

export type RefusalPage =
  | 'NOT_FOUND'
  | 'ARCHIVED'
  | 'DISABLED'
  | 'SHARE_EXPIRED'
  | 'NOT_PUBLISHED'
  | 'FILE_NOT_FOUND'
  | 'RATE_LIMITED'
  | 'METHOD_NOT_ALLOWED'
  | 'SERVICE_WORKER_REFUSED'
  | 'BLOB_MISSING'
  | 'STORAGE_UNAVAILABLE'
  | 'HANDOFF_INVALID';

const TEXT: Record<RefusalPage, [title: string, message: string]> = {
  // One page for "no such canvas" and "no route in": the two must be indistinguishable.
  NOT_FOUND: ['Canvas not found', 'There is no canvas at this address, or you do not have access to it.'],
  ARCHIVED: ['Canvas archived', 'This canvas has been archived by its owner.'],
  DISABLED: ['Canvas disabled', 'This canvas has been disabled by an administrator.'],
  SHARE_EXPIRED: ['Link expired', 'This canvas was shared for a limited time, and that time has passed.'],
  NOT_PUBLISHED: ['Not published', 'This canvas has no published version right now.'],
  FILE_NOT_FOUND: ['Page not found', 'This canvas has no page at this address.'],
  RATE_LIMITED: ['Too many attempts', 'Too many attempts. Wait a minute and try again.'],
  METHOD_NOT_ALLOWED: ['Method not allowed', 'Canvas pages answer GET and HEAD only.'],
  SERVICE_WORKER_REFUSED: ['Service workers are off', "This canvas's owner has not allowed its pages to install a service worker."],
  BLOB_MISSING: ['Something went wrong', 'This file of the canvas could not be read. The server log has the details.'],
  STORAGE_UNAVAILABLE: [
    'Try again shortly',
    'This file of the canvas could not be fetched from storage just now. Reload the page in a moment.',
  ],
  HANDOFF_INVALID: ['Sign-in link used up', 'This sign-in link has expired or was already used. Open the canvas again to sign in.'],
};

/** Who is looking at a refusal, and where to sign in as someone else (null where the sign-in is not ours to change: proxy mode). */
export interface Viewer {
  label: string;
  switchHref: string | null;
}

/**
 * The line under a refusal naming who is signed in: shown the same way
 * whether or not the canvas exists, so it tells nothing about the canvas.
 */
function viewerLine(viewer: Viewer | null): string {
  if (!viewer) return '';
  const link = viewer.switchHref ? ` <a href="${escapeHtml(viewer.switchHref)}" id="switch-account">Sign in as someone else</a>` : '';
  return `<p><small id="signed-in-as">Signed in as <strong>${escapeHtml(viewer.label)}</strong>.${link}</small></p>`;
}

export function refusalPage(kind: RefusalPage, viewer: Viewer | null = null): string {
  const [title, message] = TEXT[kind];
  // Page-level codes that are not spec codes are reported as NOT_FOUND where the status is 404.
  const code =
    kind === 'NOT_PUBLISHED' || kind === 'FILE_NOT_FOUND'
      ? 'NOT_FOUND'
      : kind === 'BLOB_MISSING'
        ? 'INTERNAL'
        : kind === 'SERVICE_WORKER_REFUSED'
          ? 'PERMISSION_DENIED'
          : kind;
  return page(code, title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${viewerLine(viewer)}`);
}

/** The password gate: posts to `{canvas URL}__easel/gate`, which answers 303 back (or 403 with this form again). */
export function passwordPage(action: string, next: string, wrong: boolean): string {
  return page(
    'PASSWORD_REQUIRED',
    'Password required',
    `<form method="post" action="${escapeHtml(action)}">
<h1>Password required</h1><p>This canvas is protected by a password.</p>
<label for="password">Password</label><input id="password" name="password" type="password" required autofocus autocomplete="current-password">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<button>Continue</button>
${wrong ? '<p class="err" role="alert">That password is not right.</p>' : ''}
</form>`,
  );
}

/** Proxy mode without identity headers: the proxy in front should have signed the visitor in. */
export function signInPage(): string {
  return page(
    'UNAUTHORIZED',
    'Sign in required',
    "<h1>Sign in required</h1><p>This canvas needs you to be signed in. Reload the page through your organization's sign-in proxy.</p>",
  );
}

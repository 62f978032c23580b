import { AppError } from '../errors.ts';
import { pagePolicy } from './page-csp.ts';

/** A JSON answer; `nosniff` here too, for the answers made outside wrapHandler (the listener's last-resort 500). */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-content-type-options': 'nosniff', ...headers },
  });
}

export function errorResponse(err: AppError): Response {
  return json(err.status, err.body(), err.headers);
}

/** Minimal HTML escaping for the server-rendered pages. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** One of Easel's own pages: the strict page policy (page-csp.ts) merged with any the caller gives, and no referrer leaves it by default. */
export function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'referrer-policy': 'same-origin',
      ...headers,
      'content-security-policy': pagePolicy(body, headers['content-security-policy']),
    },
  });
}

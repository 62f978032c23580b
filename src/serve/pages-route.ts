// What GET /openapi.json says of a canvas's pages. They are answered before
// the router (src/app.ts DISPATCHERS: the hot path), so this declaration is
// the route's description, not its mounting.
import type { RouteDeclaration } from '../http/declared-route.ts';

export const CANVAS_PAGES: RouteDeclaration = {
  method: 'ALL',
  path: '/c/:slug/*',
  door: 'public',
  tag: 'SDK and dashboard',
  summary: "A canvas's pages (path mode; subdomain mode redirects to the canvas host)",
  answer: {
    contentType: '*/*',
    description: 'the file, with ETag, Range and compression; a sign-in redirect, password gate or not-found page otherwise',
  },
  pages: {
    401: 'proxy sign-in: nobody is signed in',
    403: 'the password gate, a canvas disabled by an administrator, or a service worker the owner did not allow',
    404: 'no such canvas (or no access to it), archived, expired share, nothing published, or no such file',
    405: 'a method other than GET and HEAD',
    429: 'too many password attempts, or too many page views',
  },
};

// Subdomain mode: a canvas host's own session, obtained the way a browser
// gets it: the canvas host's /__easel/signin (state cookie), the base host's
// /auth/handoff with the base session (a code), the canvas host's
// /__easel/handoff (the session cookie).
import { expect } from 'bun:test';
import { sessionCookieName } from '../src/auth/cookie-names.ts';
import type { TestApp } from './harness.ts';

/** `name=value` of the first Set-Cookie for `name` (empty value: cleared). */
export function setCookieValue(res: Response, name: string): string | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    if (pair!.startsWith(`${name}=`)) return pair!;
  }
  return null;
}

export interface HandoffSteps {
  /** The state cookie the canvas host set. */
  state: string;
  /** Where the base host sent the browser: the canvas host's exchange URL (path and query). */
  exchange: string;
}

/** Steps 1 and 2: the state cookie and the code-bearing exchange path for `slug`, as `baseCookie`'s holder. */
export async function beginHandoff(app: TestApp, host: string, slug: string, baseCookie: string, next = '/'): Promise<HandoffSteps> {
  const begin = await app.request(`/__easel/signin?next=${encodeURIComponent(next)}`, { headers: { host: `${slug}.${host}` } });
  expect(begin.status).toBe(302);
  const state = setCookieValue(begin, 'easel_handoff')!;
  const toBase = new URL(begin.headers.get('location')!);
  const vouch = await app.request(toBase.pathname + toBase.search, { cookie: baseCookie, headers: { host } });
  expect(vouch.status).toBe(302);
  const back = new URL(vouch.headers.get('location')!);
  expect(back.host).toBe(`${slug}.${host}`);
  return { state, exchange: back.pathname + back.search };
}

/** The canvas host's session cookie (`name=value`) for the holder of `baseCookie`. */
export async function canvasHostCookie(app: TestApp, host: string, slug: string, baseCookie: string): Promise<string> {
  const { state, exchange } = await beginHandoff(app, host, slug, baseCookie);
  const done = await app.request(exchange, { cookie: state, headers: { host: `${slug}.${host}` } });
  expect(done.status).toBe(303);
  return setCookieValue(done, sessionCookieName(app.ctx.config))!;
}

/** canvasHostCookie for each of several people (e.g. a World's cast). */
export async function canvasHostCookies<K extends string>(
  app: TestApp,
  host: string,
  slug: string,
  baseCookies: Record<K, string>,
): Promise<Record<K, string>> {
  const out = {} as Record<K, string>;
  for (const [who, cookie] of Object.entries(baseCookies) as Array<[K, string]>) {
    out[who] = cookie ? await canvasHostCookie(app, host, slug, cookie) : '';
  }
  return out;
}

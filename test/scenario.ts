// Scenario tables (ARCHITECTURE "Tests"): one row is one request — who asks,
// the method and path, the body — and what must come back: the status, the
// body's `code` (or the `{error}` body), further body checks, and what must
// not change. `scenario()` makes one bun test per row; `matrix()` writes the
// rows of one request for the whole cast, so no one can be left out.
import { expect, test } from 'bun:test';
import { body } from './harness.ts';
import { CAST, type Who, type World } from './world.ts';

type Value<T> = T | ((w: World) => T);

export interface Expected {
  status: number;
  /** The runtime and lifecycle shape: `body.code` (with a string `message`). */
  code?: string;
  /** The `{error}` shape: the body is exactly `{error}`. */
  error?: string;
  /** More checks on the parsed body (and the response). */
  check?: (b: any, res: Response, w: World) => unknown;
  /** Read before and after the request; the two must be equal (a refusal changed nothing). */
  unchanged?: (w: World) => unknown;
  /**
   * A known spec violation: the row says what the spec says and is reported
   * as `test.todo` with this text, until the code is fixed.
   */
  todo?: string;
}

export interface Ask {
  method: string;
  /**
   * Placeholders: {id} {slug} (this test's canvas), {otherId} {otherSlug},
   * {<person>Id} (e.g. {viewerId}), {inviteId} (the guest's invite), and any
   * name a setup put in `w.vars`.
   */
  path: string;
  /** A JSON body, or a function of the world giving one. */
  body?: ((w: World) => unknown) | object | string | number | boolean;
  /** A body sent as is (multipart, raw text). */
  raw?: Value<BodyInit>;
  headers?: Value<Record<string, string>>;
  /** Runs before the request (and before the first `unchanged` read). */
  setup?: (w: World) => unknown;
  /** Part of the test name, after the path. */
  note?: string;
}

export interface Row extends Ask, Expected {
  who: Who | 'viewer2';
}

/** The placeholders of a path, filled in from the world. */
export function fill(w: World, path: string): string {
  return path.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (name in w.vars) return encodeURIComponent(w.vars[name]!);
    if (name === 'id') return w.canvas.id;
    if (name === 'slug') return encodeURIComponent(w.canvas.slug);
    if (name === 'otherId') return w.other.id;
    if (name === 'otherSlug') return encodeURIComponent(w.other.slug);
    if (name === 'inviteId') return w.canvas.guestId.slice('guest:'.length);
    const person = /^(\w+)Id$/.exec(name)?.[1];
    const id = person ? (w.ids as Record<string, string>)[person] : undefined;
    if (id === undefined) throw new Error(`unknown placeholder ${whole} in ${path}`);
    return encodeURIComponent(id);
  });
}

const resolve = <T>(w: World, v: Value<T> | undefined): T | undefined => (typeof v === 'function' ? (v as (w: World) => T)(w) : v);

/** The readable name of a row: `viewer PUT /v1/c/{slug}/kv/k → 403 PERMISSION_DENIED`. */
export function rowName(r: Row): string {
  const outcome = [r.status, r.code ?? r.error].filter((x) => x !== undefined).join(' ');
  return `${r.who} ${r.method} ${r.path}${r.note ? ` (${r.note})` : ''} → ${outcome}${r.unchanged ? ', nothing changes' : ''}`;
}

/** Sends one row's request and checks its answer (usable outside `scenario`). */
export async function runRow(w: World, r: Row): Promise<void> {
  await r.setup?.(w);
  const before = r.unchanged ? JSON.stringify(await r.unchanged(w)) : undefined;
  const headers = new Headers(resolve(w, r.headers));
  // What a browser on the dashboard or the canvas sends; a deploy key is not a browser.
  if (r.who !== 'otherKey' && !headers.has('sec-fetch-site')) headers.set('sec-fetch-site', 'same-origin');
  const json = resolve(w, r.body);
  const init: RequestInit & { json?: unknown } = { method: r.method, headers };
  if (json !== undefined) init.json = json;
  else if (r.raw !== undefined) init.body = resolve(w, r.raw);
  const res = await w.request(r.who, fill(w, r.path), init);
  const b = await body(res);
  const shown = typeof b === 'string' ? b.slice(0, 300) : b;
  expect({ status: res.status, body: shown }).toEqual({ status: r.status, body: r.status === res.status ? shown : expect.anything() });
  if (r.code !== undefined) {
    expect({ code: b?.code }).toEqual({ code: r.code });
    expect(typeof b.message).toBe('string');
  }
  if (r.error !== undefined) expect(b).toEqual({ error: r.error });
  await r.check?.(b, res, w);
  if (r.unchanged) expect(JSON.stringify(await r.unchanged(w))).toBe(before!);
}

/** One bun test per row, named by `rowName`. Give it the world of the describe block (`useWorld`). */
export function scenario(w: World, rows: Row[]): void {
  for (const r of rows) {
    if (r.todo) test.todo(`${rowName(r)} — SPEC VIOLATION: ${r.todo}`, () => runRow(w, r));
    else test(rowName(r), () => runRow(w, r));
  }
}

/** The rows of one request for every cast member: the outcomes must name the whole cast. */
export function matrix(request: Ask & Pick<Expected, 'unchanged'>, outcomes: Record<Who, Expected>): Row[] {
  return CAST.map((who) => {
    const o = outcomes[who];
    // A refusal proves it changed nothing whenever the request says what to watch.
    const unchanged = o.status >= 400 ? (o.unchanged ?? request.unchanged) : o.unchanged;
    return { ...request, ...o, unchanged, who };
  });
}

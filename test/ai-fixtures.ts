// The AI tests' world: the real app pointed at a local fake Anthropic API,
// an injectable clock, an owner, an editor, two viewers, a stranger, an
// admin and a legacy guest around a canvas with AI on.
import { SECRET_KEY_HEX } from './connections-fixtures.ts';
import { afterAll, beforeAll, beforeEach } from 'bun:test';
import { guestCookieName } from '../src/auth/cookie-names.ts';
import type { Canvas } from '../src/canvases/record.ts';
import { newId } from '../src/ids.ts';
import { DEFAULT_AI_PRICES } from '../src/settings/service.ts';
import { startFakeAnthropic, type FakeAnthropic, type RecordedRequest } from './fake-anthropic.ts';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ADMIN_EMAIL, World, type Person as WorldPerson } from './world.ts';

export const AI_KEY = 'sk-ant-test-0123456789-secret';
export const MODEL = 'claude-sonnet-5-5';
/** MODEL's default price: USD per million tokens. */
export const PRICE = DEFAULT_AI_PRICES[MODEL]!;

/** world.ts's people (AI tests send cookies only). */
export type Person = WorldPerson;

export interface AiWorld {
  app: TestApp;
  fake: FakeAnthropic;
  clock: { now: number };
  canvas: Canvas;
  cookie: Record<Person | 'anonymous', string>;
  ids: Record<Person, string>;
  /** POST /v1/c/{slug}/ai/chat with a JSON body (or a raw string). */
  chat(body: unknown, who?: Person | 'anonymous', slug?: string, init?: RequestInit): Promise<Response>;
  /** Canvas columns (snake_case) for the world's canvas. */
  setCanvas(columns: Record<string, string | number | null>): Promise<void>;
  /** A guest session for a canvas, made directly through the guest store. */
  guestFor(canvasId: string): Promise<{ cookie: string; actorId: string }>;
  close(): Promise<void>;
}

/**
 * One AiWorld for a describe block: made before its tests and closed after
 * them; before each test the fake forgets its script and `reset` puts back
 * whatever else the block's tests change. `bind` hands the world over.
 */
export function useAiWorld(bind: (w: AiWorld) => void, reset: (w: AiWorld) => unknown = () => {}): void {
  let world: AiWorld;
  beforeAll(async () => {
    world = await makeAiWorld();
    bind(world);
  });
  afterAll(() => world.close());
  beforeEach(async () => {
    world.fake.reset();
    await reset(world);
  });
}

export async function makeAiWorld(options: { listen?: boolean; env?: Record<string, string>; start?: number } = {}): Promise<AiWorld> {
  const fake = await startFakeAnthropic();
  const clock = { now: options.start ?? Date.UTC(2025, 0, 15, 12, 0, 0) };
  const app = await startTestApp({
    listen: options.listen,
    // Tests do not wait for the real retry back-off.
    app: { ai: { tuning: { retryDelaysMs: [5, 5] } } },
    now: () => clock.now,
    env: {
      EASEL_AI_API_KEY: AI_KEY,
      // An admin-set provider key is sealed with it.
      EASEL_SECRET_KEY: SECRET_KEY_HEX,
      EASEL_AI_BASE_URL: fake.url,
      EASEL_RATELIMIT_ENABLED: 'false',
      EASEL_ADMIN_EMAILS: ADMIN_EMAIL,
      ...options.env,
    },
  });
  // The cast through the API (world.ts); the guest's invite is named, as AI usage reports show it.
  const cast = new World({ canvas: { guest: false } });
  await cast.attach(app);
  await cast.capabilities({ ai: true });
  const guest = await cast.openGuestInvite(cast.canvas.id, 'owner', 'Visitor');
  const { anonymous, owner, editor, viewer, viewer2, stranger, admin } = cast.cookie;
  const cookie: AiWorld['cookie'] = { anonymous, owner, editor, viewer, viewer2, stranger, admin, guest: guest.guestCookie };
  const ids: AiWorld['ids'] = { ...cast.ids, guest: guest.guestId };
  // Insertion order for calls() on Postgres (see there): the app's own database, made for this world.
  if (app.ctx.sql.engine === 'postgres') await app.ctx.sql.run('ALTER TABLE ai_calls ADD COLUMN test_seq BIGSERIAL');
  const canvas = (await app.ctx.canvases.byId(cast.canvas.id))!;

  /** A guest session for a canvas made directly on the store (no invite route reaches those). */
  const guestFor = async (canvasId: string) => {
    const { invite } = await app.ctx.guests.createInvite(canvasId, ids.owner, 'Visitor');
    return {
      cookie: `${guestCookieName(app.ctx.config)}=${await app.ctx.guests.createSession(invite)}`,
      actorId: `guest:${invite.inviteId}`,
    };
  };

  const world: AiWorld = {
    app,
    fake,
    clock,
    canvas,
    cookie,
    ids,
    chat(payload, who = 'editor', slug = world.canvas.slug, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      return app.request(`/v1/c/${slug}/ai/chat`, {
        method: 'POST',
        ...init,
        headers,
        cookie: cookie[who],
        body: typeof payload === 'string' || payload instanceof ReadableStream ? (payload as BodyInit) : JSON.stringify(payload),
      });
    },
    async setCanvas(columns) {
      await app.ctx.canvases.update(world.canvas.id, columns, app.ctx.now());
      world.canvas = (await app.ctx.canvases.byId(world.canvas.id))!;
    },
    guestFor,
    async close() {
      await app.close();
      await fake.close();
    },
  };
  return world;
}

export const ask = (text = 'Hi there', extra: Record<string, unknown> = {}) => ({
  model: MODEL,
  messages: [{ role: 'user', content: text }],
  ...extra,
});

/** The SSE events of a response, checking that every event is exactly one `data:` line. */
export async function sseEvents(res: Response): Promise<any[]> {
  const text = await res.text();
  expectFraming(text);
  return text
    .split('\n\n')
    .filter((f) => f !== '')
    .map((f) => JSON.parse(f.slice('data: '.length)));
}

function expectFraming(text: string): void {
  if (!text.endsWith('\n\n')) throw new Error(`SSE body does not end with a blank line: ${JSON.stringify(text.slice(-40))}`);
  for (const f of text.slice(0, -2).split('\n\n')) {
    if (!f.startsWith('data: ') || f.includes('\n')) throw new Error(`not one data: line: ${JSON.stringify(f)}`);
  }
}

/** A settled (or reserved) spend row, as if a call had happened at `at` (written through the storage port: either engine). */
export async function recordSpend(
  app: TestApp,
  row: {
    canvasId: string;
    actorId: string;
    usd: number;
    at: number;
    kind?: 'member' | 'guest';
    state?: 'settled' | 'reserved';
    model?: string;
  },
): Promise<string> {
  const id = newId();
  const day = new Date(row.at).toISOString().slice(0, 10);
  const settled = (row.state ?? 'settled') === 'settled';
  await app.ctx.sql.run(
    `INSERT INTO ai_calls (id, canvas_id, actor_id, actor_kind, model, state, reserved_usd, cost_usd, day, month, created_at, settled_at, outcome)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`,
    id,
    row.canvasId,
    row.actorId,
    row.kind ?? 'member',
    row.model ?? MODEL,
    settled ? 'settled' : 'reserved',
    row.usd,
    settled ? row.usd : 0,
    day,
    day.slice(0, 7),
    row.at,
    settled ? row.at : null,
    settled ? 'ok' : null,
  );
  return id;
}

/**
 * The canvas's AI call rows in the order they were made. The tests' clock
 * stands still, so many share `created_at`: SQLite's rowid breaks the ties;
 * on Postgres, the test-only `test_seq` column makeAiWorld adds (a sequence
 * filled on insert; the product names its columns and never reads it).
 */
export async function calls(app: TestApp, canvasId: string): Promise<any[]> {
  const order = app.ctx.sql.engine === 'postgres' ? 'test_seq' : 'rowid';
  const rows = await app.ctx.sql.all<Record<string, unknown>>(
    `SELECT * FROM ai_calls WHERE canvas_id = ?1 ORDER BY created_at, ${order}`,
    canvasId,
  );
  return rows.map(({ test_seq: _, ...row }) => row);
}

/** Waits for the fake's answer to be over and asserts Easel let the provider call go (hung up) before it finished. */
export async function expectLetGo(rec: RecordedRequest | undefined): Promise<void> {
  if (!rec) throw new Error('the provider was never called');
  await rec.finished;
  if (!rec.aborted) throw new Error('the provider call ran to its end: Easel did not let it go');
}

export async function expectError(res: Response, status: number, code: string): Promise<any> {
  const b = await body(res);
  if (res.status !== status || b?.code !== code) throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(b)}`);
  if (typeof b.message !== 'string') throw new Error(`no message in ${JSON.stringify(b)}`);
  return b;
}

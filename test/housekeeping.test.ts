// Housekeeping (issue 20 item 6): the hourly pass removes what has lapsed and keeps what has not.
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { body, startTestApp, type TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';

const DAY = 24 * 3600_000;
let app: TestApp;
let scheduler: ManualClock;

beforeAll(async () => {
  scheduler = new ManualClock(Date.now());
  app = await startTestApp({
    now: scheduler.now,
    scheduler: scheduler.scheduler,
    env: { EASEL_AUDIT_RETENTION_DAYS: '30', EASEL_SESSION_TTL_HOURS: '24' },
  });
});
afterAll(() => app.close());

const count = (table: string) => app.ctx.db!.query<{ n: number }, []>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n;

test('each hour: expired sessions, audit rows past the retention and long-expired tokens go; live ones stay', async () => {
  const old = await app.signIn('old@example.com');
  const token = await body(
    await app.request('/api/tokens', { method: 'POST', cookie: old, json: { name: 't', expiresAt: scheduler.now() + 1000 } }),
  );
  expect(token.id).toEqual(expect.any(String));
  const auditBefore = count('audit_log');
  expect(auditBefore).toBeGreaterThan(0);

  // Sign-ins left half-way (a handoff never traded, an OIDC login never finished), as their flows leave them.
  const at = scheduler.now();
  app.ctx
    .db!.query(
      "INSERT INTO sign_in_handoffs (code_hash, canvas_id, state_hash, user_id, invite_id, parent_hash, expires_at) VALUES ('c', NULL, 's', 'u', NULL, 'p', ?)",
    )
    .run(at + 60_000);
  app.ctx
    .db!.query(
      "INSERT INTO oidc_logins (state_hash, browser_hash, code_verifier, nonce, return_to, expires_at) VALUES ('s', 'b', 'v', 'n', '/', ?)",
    )
    .run(at + 600_000);
  app.ctx
    .db!.query("INSERT INTO cli_logins (code_hash, user_id, challenge, name, expires_at) SELECT 'h', id, 'c', 'cli', ? FROM users LIMIT 1")
    .run(at + 300_000);
  expect(count('cli_logins')).toBe(1);

  // Two days on: the first session expired; a fresh one is live.
  scheduler.advance(2 * DAY);
  const fresh = await app.signIn('fresh@example.com');
  scheduler.advance(3600_000);
  // Removed by the hourly pass, not by being presented.
  expect(count('sessions')).toBe(1);
  expect([count('sign_in_handoffs'), count('oidc_logins'), count('cli_logins')]).toEqual([0, 0, 0]);
  expect((await app.request('/api/me', { cookie: old })).status).toBe(401);
  expect((await app.request('/api/me', { cookie: fresh })).status).toBe(200);
  expect(count('personal_tokens')).toBe(1); // expired, still listed for a month

  // A month on: the old audit rows and the long-expired token are gone.
  scheduler.advance(31 * DAY);
  expect(count('personal_tokens')).toBe(0);
  const oldest = app.ctx.db!.query<{ at: number | null }, []>('SELECT MIN(at) AS at FROM audit_log').get()!.at;
  expect(oldest === null || oldest >= scheduler.now() - 30 * DAY - 3600_000).toBe(true);
  expect(app.logs.some((l) => l.msg === 'housekeeping')).toBe(true);
});

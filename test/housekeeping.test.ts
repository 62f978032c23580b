// passes: embedded, cluster
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
  // The hourly pass runs in the background (on Postgres it takes a while): the test waits for the passes the clock
  // starts. Node A's are enough on the cluster: node B's run at the same times and remove nothing else.
  const { housekeeping } = app.features;
  const sweep = housekeeping.sweep.bind(housekeeping);
  housekeeping.sweep = () => {
    const pass = sweep();
    passes.push(pass);
    return pass;
  };
});
afterAll(() => app.close());

const passes: Array<Promise<unknown>> = [];
const count = async (table: string) => (await app.ctx.sql.get<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;
async function advance(ms: number): Promise<void> {
  // Each timer once at the end: on the cluster, a month of every node's heartbeats one by one outlasts the test.
  scheduler.skip(ms);
  await Promise.all(passes.splice(0));
}

test('each hour: expired sessions, audit rows past the retention and long-expired tokens go; live ones stay', async () => {
  const old = await app.signIn('old@example.com');
  const token = await body(
    await app.request('/api/tokens', { method: 'POST', cookie: old, json: { name: 't', expiresAt: scheduler.now() + 1000 } }),
  );
  expect(token.id).toEqual(expect.any(String));
  const auditBefore = await count('audit_log');
  expect(auditBefore).toBeGreaterThan(0);

  // Sign-ins left half-way (a handoff never traded, an OIDC login never finished), as their flows leave them.
  const at = scheduler.now();
  await app.ctx.sql.run(
    "INSERT INTO sign_in_handoffs (code_hash, canvas_id, state_hash, user_id, invite_id, parent_hash, expires_at) VALUES ('c', NULL, 's', 'u', NULL, 'p', ?1)",
    at + 60_000,
  );
  await app.ctx.sql.run(
    "INSERT INTO oidc_logins (state_hash, browser_hash, code_verifier, nonce, return_to, expires_at) VALUES ('s', 'b', 'v', 'n', '/', ?1)",
    at + 600_000,
  );
  await app.ctx.sql.run(
    "INSERT INTO cli_logins (code_hash, user_id, challenge, name, expires_at) SELECT 'h', id, 'c', 'cli', ?1 FROM users LIMIT 1",
    at + 300_000,
  );
  expect(await count('cli_logins')).toBe(1);
  // What a node that died mid-write or mid-deletion leaves of its blob claims (src/blobs/shared-claims.ts).
  await app.ctx.sql.run("INSERT INTO blob_holds (hash, holder, expires_at) VALUES ('h', 'dead:1', ?1)", at + 3600_000);
  await app.ctx.sql.run("INSERT INTO blob_deletions (hash, node, started_at) VALUES ('h', 'dead', ?1)", at);

  // Two days on: the first session expired; a fresh one is live.
  await advance(2 * DAY);
  const fresh = await app.signIn('fresh@example.com');
  await advance(3600_000);
  // Removed by the hourly pass, not by being presented.
  expect(await count('sessions')).toBe(1);
  expect([await count('sign_in_handoffs'), await count('oidc_logins'), await count('cli_logins')]).toEqual([0, 0, 0]);
  expect([await count('blob_holds'), await count('blob_deletions')]).toEqual([0, 0]);
  expect((await app.request('/api/me', { cookie: old })).status).toBe(401);
  expect((await app.request('/api/me', { cookie: fresh })).status).toBe(200);
  expect(await count('personal_tokens')).toBe(1); // expired, still listed for a month

  // A month on: the old audit rows and the long-expired token are gone.
  await advance(31 * DAY);
  expect(await count('personal_tokens')).toBe(0);
  const oldest = (await app.ctx.sql.get<{ at: number | null }>('SELECT MIN(at) AS at FROM audit_log'))!.at;
  expect(oldest === null || oldest >= scheduler.now() - 30 * DAY - 3600_000).toBe(true);
  // Every node's log: on the cluster node B's pass at the same hour may be the one that removed the rows (and logged).
  expect(app.nodes.some((node) => node.logs.some((l) => l.msg === 'housekeeping'))).toBe(true);
});

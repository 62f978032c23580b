// passes: embedded — starts its own two nodes on a Postgres it runs
// Issue 36: a read that follows an acknowledged write sees it on every node.
// Two nodes on one Postgres; each loop writes through node A, waits for A's
// answer, then reads through node B at once, as a round-robin balancer sends
// a client's next request. Node B must neither answer from the copy it held
// before the write nor from the one it holds while it reloads. No waiting on
// a clock or on B's notification: the read itself must be right.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body, type TestApp } from './harness.ts';
import { SECRET_KEY_HEX } from './connections-fixtures.ts';
import { ADMIN_EMAIL, apiCanvas } from './runtime-fixtures.ts';
import { startPgCluster, type PgCluster } from './support/pg-cluster.ts';

const ROUNDS = 30;

describe('read after write across two nodes', () => {
  let cluster: PgCluster;
  let a: TestApp;
  let b: TestApp;
  let admin: string;
  let owner: string;
  beforeAll(async () => {
    cluster = await startPgCluster({
      env: { EASEL_ADMIN_EMAILS: ADMIN_EMAIL, EASEL_SECRET_KEY: SECRET_KEY_HEX, EASEL_RATELIMIT_ENABLED: 'false' },
    });
    ({ a, b } = cluster);
    for (const node of [a, b]) while (!node.ctx.sql.changes.storable()) await node.ctx.sql.changes.next();
    admin = await a.signIn(ADMIN_EMAIL, 'Admin');
    owner = await a.signIn('owner@example.com', 'Owner');
  });
  afterAll(() => cluster.close());

  const ok = async (node: TestApp, method: string, path: string, cookie: string, json?: unknown) => {
    const res = await node.request(path, { method, cookie, json });
    expect({ method, path, status: res.status }).toEqual({ method, path, status: res.status < 300 ? res.status : 200 });
    return body(res);
  };

  test('Connections: a grant on A is usable on B at once, and a revocation is gone', async () => {
    await ok(a, 'POST', '/api/admin/connections', admin, { name: 'raw', origin: 'https://raw.example', methods: ['GET'] });
    const canvas = await apiCanvas(a, owner);
    const onB = async () => (await ok(b, 'GET', `/v1/c/${canvas.slug}/me`, owner)).resources.connections;
    const seen: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await onB(); // B holds the grants as they are
      await ok(a, 'PUT', `/api/admin/canvases/${canvas.id}/connections/raw`, admin);
      seen.push(`granted ${JSON.stringify(await onB())}`);
      await ok(a, 'DELETE', `/api/admin/canvases/${canvas.id}/connections/raw`, admin);
      seen.push(`revoked ${JSON.stringify(await onB())}`);
    }
    expect(seen).toEqual(Array.from({ length: ROUNDS }, () => ['granted ["raw"]', 'revoked []']).flat());
  });

  test('instance settings: a change on A is what B answers', async () => {
    const seen: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await ok(b, 'GET', '/api/admin/settings', admin);
      await ok(a, 'PATCH', '/api/admin/settings', admin, { filesBytesFile: 1_000_000 + round });
      seen.push((await ok(b, 'GET', '/api/admin/settings', admin)).filesBytesFile);
    }
    expect(seen).toEqual(Array.from({ length: ROUNDS }, (_, round) => 1_000_000 + round));
  });

  test('access: sharing on A lets the person in on B, and unsharing shuts them out', async () => {
    const viewer = await a.signIn('viewer@example.com', 'Viewer');
    const viewerId = (await ok(a, 'GET', '/api/me', viewer)).id;
    const canvas = await apiCanvas(a, owner);
    const onB = async () => (await b.request(`/v1/c/${canvas.slug}/me`, { cookie: viewer })).status;
    const seen: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await onB();
      await ok(a, 'PUT', `/api/canvases/${canvas.id}/members`, owner, { email: 'viewer@example.com', role: 'viewer' });
      seen.push(`shared ${await onB()}`);
      await ok(a, 'DELETE', `/api/canvases/${canvas.id}/members/${viewerId}`, owner);
      seen.push(`unshared ${await onB()}`);
    }
    expect(seen).toEqual(Array.from({ length: ROUNDS }, () => ['shared 200', 'unshared 404']).flat());
  });

  test('sessions: signing out on A signs the session out on B', async () => {
    const seen: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const cookie = await a.signIn(`leaving-${round}@example.com`);
      await ok(b, 'GET', '/api/me', cookie); // B holds the session
      await ok(a, 'POST', '/auth/logout', cookie);
      seen.push((await b.request('/api/me', { cookie })).status);
    }
    expect(seen).toEqual(Array.from({ length: ROUNDS }, () => 401));
  });
});

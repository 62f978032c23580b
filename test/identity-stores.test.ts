// Sessions, personal tokens, guest invites and sign-in handoffs on both
// engines: what revokes on one node is refused on the other, and what is
// single-use is used once however many ask at once.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { AuditLog } from '../src/audit/store.ts';
import { challengeOf, CliLogins } from '../src/auth/cli-login.ts';
import { GuestStore } from '../src/auth/guests.ts';
import { SignInHandoffs } from '../src/auth/handoff.ts';
import { SessionStore } from '../src/auth/sessions.ts';
import { TokenStore } from '../src/auth/tokens.ts';
import { UserStore } from '../src/auth/users.ts';
import type { Sql } from '../src/db/sql.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

const HOUR = 3600_000;

describe.each(ENGINES)('identity stores on %s', (name, make) => {
  let engine: TestEngine;
  let sql: Sql;
  let clock = Date.UTC(2026, 10, 26, 12);
  const now = () => clock;
  beforeAll(async () => {
    engine = await make();
    sql = engine.sql;
    for (const id of ['ann', 'ben', 'admin'])
      await sql.run('INSERT INTO users (id, email, name, created_at) VALUES (?1, ?2, ?1, 0)', id, `${id}@example.com`);
    await sql.run(
      "INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at) VALUES ('c1', 'c1', 't', 'ann', 'k', 'p', 0, 0)",
    );
  });
  afterAll(() => engine.close());

  test('a session resolves from memory until a write to sessions or users, then from the rows; expiry and renewal hold', async () => {
    const sessions = new SessionStore(sql, 24 * HOUR, now);
    const token = await sessions.create('ann');
    expect((await sessions.resolve(token))?.user.id).toBe('ann');
    await sql.run("UPDATE users SET name = 'Ann B' WHERE id = 'ann'");
    await settled(sql);
    expect((await sessions.resolve(token))?.user.name).toBe('Ann B');
    clock += 2 * HOUR;
    expect((await sessions.resolve(token))?.renewed).toBe(true);
    expect((await sessions.resolve(token))?.renewed).toBe(false);
    clock += 25 * HOUR;
    expect(await sessions.resolve(token)).toBeNull();
    expect(await sql.get('SELECT 1 AS found FROM sessions')).toBeUndefined(); // an expired session presented is removed
  });

  test.if(name === 'postgres')('a session ended or a user deactivated on one node is refused on the other once it hears', async () => {
    const peerSql = await engine.peer!();
    const a = new SessionStore(sql, 24 * HOUR, now);
    const b = new SessionStore(peerSql, 24 * HOUR, now);
    await settled(peerSql);
    const token = await a.create('ben');
    await settled(peerSql);
    expect((await b.resolve(token))?.user.id).toBe('ben'); // now held in b's memory
    const heard = peerSql.changes.current();
    await a.destroy(token);
    while (peerSql.changes.current() === heard) await peerSql.changes.next();
    expect(await b.resolve(token)).toBeNull();

    const again = await a.create('ben');
    await settled(peerSql);
    expect((await b.resolve(again))?.user.id).toBe('ben');
    const before = peerSql.changes.current();
    await sql.run("UPDATE users SET active = 0 WHERE id = 'ben'");
    while (peerSql.changes.current() === before) await peerSql.changes.next();
    expect(await b.resolve(again)).toBeNull();
    await sql.run("UPDATE users SET active = 1 WHERE id = 'ben'");
  });

  test('20 requests at once with a token record its use once; a minute later, once more', async () => {
    const audit = new AuditLog(sql, now);
    const tokens = new TokenStore(sql, now, audit);
    const created = await tokens.create('ann', 'ci', null);
    const uses = await Promise.all(Array.from({ length: 20 }, () => tokens.resolve(created.token)));
    expect(uses.every((u) => u?.tokenId === created.id)).toBe(true);
    const recorded = async () => (await sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM audit_log WHERE action = 'token.used'"))!.n;
    expect(await recorded()).toBe(1);
    clock += 61_000;
    await Promise.all(Array.from({ length: 5 }, () => tokens.resolve(created.token)));
    expect(await recorded()).toBe(2);
    expect((await tokens.list('ann')).map((t) => [t.id, t.lastUsedAt])).toEqual([[created.id, clock]]);
    expect(await tokens.delete('ben', created.id)).toBe(false);
    expect(await tokens.delete('ann', created.id)).toBe(true);
    expect(await tokens.resolve(created.token)).toBeNull();
  });

  test('a guest invite lives while its creator may manage the canvas (an admin by email included); revoking ends its sessions', async () => {
    const guests = new GuestStore(sql, 24 * HOUR, now, ['ADMIN@example.com']);
    const byOwner = await guests.createInvite('c1', 'ann', 'Visitor', 2);
    const byAdmin = await guests.createInvite('c1', 'admin');
    const byStranger = await guests.createInvite('c1', 'ben');
    expect(await guests.isLive(byOwner.invite.inviteId)).toBe(true);
    expect(await guests.isLive(byAdmin.invite.inviteId)).toBe(true);
    expect(await guests.isLive(byStranger.invite.inviteId)).toBe(false);
    expect((await guests.inviteByToken(byOwner.token))?.name).toBe('Visitor');
    expect(await guests.inviteByToken(byStranger.token)).toBeNull();

    const session = await guests.createSession(byOwner.invite);
    expect(await guests.resolve(session)).toEqual({ inviteId: byOwner.invite.inviteId, canvasId: 'c1', name: 'Visitor' });
    expect((await guests.invites('c1')).map((i) => i.inviteId)).toEqual(
      [byOwner, byAdmin, byStranger].map((x) => x.invite.inviteId).sort((x, y) => (x < y ? -1 : 1)),
    );
    expect(await guests.revoke('other-canvas', byOwner.invite.inviteId)).toBe(false);
    expect(await guests.revoke('c1', byOwner.invite.inviteId)).toBe(true);
    expect(await guests.resolve(session)).toBeNull();
    expect(await sql.get('SELECT 1 AS left FROM guest_sessions WHERE invite_id = ?1', byOwner.invite.inviteId)).toBeUndefined();
  });

  test('a guest invite by an admin from a provider group lives while they are in a group the setting names', async () => {
    const users = new UserStore(sql, now);
    await sql.run("INSERT INTO users (id, email, name, created_at) VALUES ('ops', 'ops@example.com', 'ops', 0)");
    const guests = new GuestStore(sql, 24 * HOUR, now, [], ['easel-admins', 'ops-leads']);
    const invite = await guests.createInvite('c1', 'ops');
    expect(await guests.isLive(invite.invite.inviteId)).toBe(false);
    const ops = await users.setAdminGroups((await users.byId('ops'))!, ['ops-leads', 'ops-leads']);
    expect(ops.adminGroups).toEqual(['ops-leads']);
    expect(await guests.isLive(invite.invite.inviteId)).toBe(true);
    expect((await guests.inviteByToken(invite.token))?.inviteId).toBe(invite.invite.inviteId);
    // A setting that no longer names the group ends it at once; a sign-in outside the group too.
    expect(await new GuestStore(sql, 24 * HOUR, now, [], ['easel-admins']).isLive(invite.invite.inviteId)).toBe(false);
    await users.setAdminGroups(ops, []);
    expect(await guests.isLive(invite.invite.inviteId)).toBe(false);
  });

  test('20 first sign-ins of one person at once, in any letter case, make one user; a name given later replaces the placeholder', async () => {
    const users = new UserStore(sql, now);
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, i) => users.ensure(i % 2 ? 'New.Person@Example.com' : ' new.person@example.com ')),
    );
    expect(new Set(made.map((u) => u.id)).size).toBe(1);
    expect(made[0]).toMatchObject({ email: 'new.person@example.com', name: 'new.person', active: true });
    expect((await users.ensure('NEW.PERSON@example.com', ' Nia ')).name).toBe('Nia');
    expect((await users.byEmail('new.person@EXAMPLE.com'))?.name).toBe('Nia');
    await users.ensureOrg('acme', 'Acme');
    await users.ensureOrg('acme', 'Other name');
    const updated = await users.update(made[0]!.id, { active: false, canPublishPublic: false, orgId: 'acme' });
    expect(updated).toMatchObject({ active: false, canPublishPublic: false, orgId: 'acme' });
    expect(await users.orgName('acme')).toBe('Acme');
    expect((await users.list()).filter((u) => u.email === 'new.person@example.com')).toHaveLength(1);
  });

  test('an `easel login` approval is traded once, on any node, only with its verifier; a person keeps at most 20 waiting', async () => {
    const other = engine.peer ? await engine.peer() : sql; // the CLI may reach another node than the browser did
    const approving = new CliLogins(sql, now);
    const trading = new CliLogins(other, now);
    const verifier = 'v'.repeat(43);
    const request = { port: 4000, state: 's'.repeat(16), challenge: challengeOf(verifier), name: 'easel CLI' };
    const code = await approving.approve('ann', request);
    const traded = await Promise.all(Array.from({ length: 10 }, () => trading.exchange(code, verifier)));
    expect(traded.filter((t) => t !== null)).toEqual([{ userId: 'ann', name: 'easel CLI' }]);

    const wrongVerifier = await approving.approve('ann', request);
    expect(await trading.exchange(wrongVerifier, 'w'.repeat(43))).toBeNull();
    expect(await trading.exchange(wrongVerifier, verifier)).toBeNull(); // spent by the failed try

    const codes: string[] = [];
    for (let i = 0; i < 25; i++) {
      codes.push(await approving.approve('ann', request));
      clock += 1; // later approvals expire later: the oldest go first
    }
    const left = await sql.get<{ n: number }>("SELECT COUNT(*) AS n FROM cli_logins WHERE user_id = 'ann'");
    expect(left).toEqual({ n: 20 });
    expect(await trading.exchange(codes[0]!, verifier)).toBeNull();
    expect(await trading.exchange(codes[24]!, verifier)).toEqual({ userId: 'ann', name: 'easel CLI' });
  });

  test('20 redemptions of one handoff code at once: exactly one signs in', async () => {
    const handoffs = new SignInHandoffs(sql, now);
    const { state, stateHash } = handoffs.newState();
    const code = await handoffs.issue({ subject: { kind: 'user', userId: 'ann' }, canvasId: 'c1', parentHash: 'p', stateHash });
    const redeemed = await Promise.all(Array.from({ length: 20 }, () => handoffs.redeem(code, 'c1', [state])));
    expect(redeemed.filter((r) => r !== null)).toEqual([{ subject: { kind: 'user', userId: 'ann' }, canvasId: 'c1', parentHash: 'p' }]);
  });
});

/** On Postgres, waits until this node has heard every change committed so far (a write of its own, heard back). */
async function settled(sql: Sql): Promise<void> {
  if (sql.engine !== 'postgres') return;
  const changes = sql.changes;
  while (!changes.storable()) await changes.next();
  const heard = changes.next();
  await sql.run("UPDATE users SET name = name WHERE id = 'ann'");
  await heard;
}

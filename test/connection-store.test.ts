// Connection profiles and grants on both engines: held in memory for the
// capability gate, written through the port, reloaded by the writer before
// it answers, and (on Postgres) reloaded on another node once it hears.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connectionRows, ConnectionStore, type Profile } from '../src/connections/store.ts';
import { AppError } from '../src/errors.ts';
import { ENGINES, type TestEngine } from './support/engines.ts';

const profile = (name: string): Profile => ({
  name,
  origin: 'https://api.example.com',
  methods: ['GET'],
  enabled: true,
  createdAt: 1,
  updatedAt: 1,
});

describe.each(ENGINES)('connection profiles on %s', (name, make) => {
  let engine: TestEngine;
  let store: ConnectionStore;
  beforeAll(async () => {
    engine = await make();
    await engine.sql.run('INSERT INTO users (id, email, name, created_at) VALUES (?1, ?2, ?1, 0)', 'ann', 'ann@example.com');
    for (const id of ['c1', 'c2'])
      await engine.sql.run(
        "INSERT INTO canvases (id, slug, title, owner_id, key_hash, publication_token, created_at, updated_at) VALUES (?1, ?1, 't', 'ann', ?1, 'p', 0, 0)",
        id,
      );
    store = new ConnectionStore(engine.sql);
    await store.load();
  });
  afterAll(() => engine.close());

  test('a profile, its sealed headers and grants read back from memory right after the write', async () => {
    const nonce = new Uint8Array([1, 2, 3]);
    const ciphertext = new Uint8Array([0, 255, 7]);
    await store.write(function* () {
      yield* connectionRows.insert(profile('billing'));
      yield* connectionRows.putHeader('billing', { header: 'authorization', keyId: 'k1', nonce, ciphertext });
    });
    expect(store.get('billing')).toMatchObject({ origin: 'https://api.example.com', methods: ['GET'], enabled: true });
    expect(store.headers('billing')).toEqual([{ header: 'authorization', keyId: 'k1', nonce, ciphertext }]);
    expect(await store.grant('c1', 'billing', 5)).toEqual({ grantedAt: 5, created: true });
    expect(await store.grant('c1', 'billing', 9)).toEqual({ grantedAt: 5, created: false });
    expect(store.isGranted('c1', 'billing')).toBe(true);
    expect(store.grantsOf('c1')).toEqual([{ name: 'billing', grantedAt: 5 }]);
    expect(await store.canvasesOf('billing')).toEqual(['c1']);
    expect(await store.revoke('c1', 'billing')).toBe(true);
    expect(await store.revoke('c1', 'billing')).toBe(false);
    expect(store.isGranted('c1', 'billing')).toBe(false);
    expect(await store.write(() => connectionRows.delete('billing'))).toBe(true);
    expect(store.get('billing')).toBeNull();
    expect(store.headers('billing')).toEqual([]);
  });

  test('ten creates of one name at once: one profile, the others told it exists', async () => {
    const create = () =>
      store.write(function* () {
        if (yield* connectionRows.exists('twin')) throw new AppError('CONNECTION_EXISTS', 'exists');
        yield* connectionRows.insert(profile('twin'));
      });
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, create));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as AppError).errorCode).toBe('CONNECTION_EXISTS');
    expect(store.list().map((p) => p.name)).toEqual(['twin']);
  });

  test.if(name === 'postgres')('a grant revoked on one node stops counting on the other once it hears', async () => {
    const peerSql = await engine.peer!();
    const other = new ConnectionStore(peerSql);
    while (!peerSql.changes.storable()) await peerSql.changes.next();
    await other.load();
    const heard = peerSql.changes.current();
    await store.grant('c2', 'twin', 1);
    // The notification itself starts the reload (no read is needed to notice it).
    while (peerSql.changes.current() === heard) await peerSql.changes.next();
    await other.settled();
    expect(other.isGranted('c2', 'twin')).toBe(true);
    const before = peerSql.changes.current();
    await store.revoke('c2', 'twin');
    while (peerSql.changes.current() === before) await peerSql.changes.next();
    await other.settled();
    expect(other.isGranted('c2', 'twin')).toBe(false);
  });
});

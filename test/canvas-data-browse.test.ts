// passes: embedded, cluster
// The dashboard's data browser (issue 39, item 4): pages of what the exports
// give, by the same read rules (never `kv.user`, personal records only where
// the policy lets the owner read them), with a literal search, and deletes
// through the runtime services, so what the dashboard removes is gone from
// the runtime API too.
import { describe, expect, test } from 'bun:test';
import { setCollections } from './collections-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { body } from './harness.ts';
import { useWorld, type Who } from './world.ts';

const w = useWorld({ env: { EASEL_RATELIMIT_ENABLED: 'false' } });
type Caller = Who | { token: string };

const rt = (path: string, who: Who, init: RequestInit & { json?: unknown } = {}) => w.request(who, `/v1/c/${w.canvas.slug}${path}`, init);
const call = (method: string, path: string, who: Caller) =>
  typeof who === 'object'
    ? w.app.request(`/api/canvases/${w.canvas.id}/data${path}`, { method, headers: { authorization: `Bearer ${who.token}` } })
    : w.request(who, `/api/canvases/${w.canvas.id}/data${path}`, { method });
const items = async (path: string, who: Caller = 'owner') => {
  const res = await call('GET', path, who);
  const b = await body(res);
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  return b as { items: any[]; next: string | null };
};

async function ok(res: Response, status = 200) {
  const b = await body(res);
  expect({ status: res.status, body: b }).toEqual({ status, body: expect.anything() });
  return b;
}

/** A shared key, a record in `poll` (collaborative) and in `notes` (personal), a submission and a file, all by the viewer or editor. */
async function seed() {
  await setCollections(w, { notes: { preset: 'personal' }, poll: { preset: 'collaborative' } });
  await ok(await rt('/kv/title', 'editor', { method: 'PUT', json: 'Team lunch' }));
  await ok(await rt('/kv/user/theme', 'viewer', { method: 'PUT', json: 'dark' }));
  const poll = await ok(await rt('/collections/poll', 'viewer', { method: 'POST', json: { choice: 'pie' } }), 201);
  const note = await ok(await rt('/collections/notes', 'viewer', { method: 'POST', json: { text: 'my secret note' } }), 201);
  await ok(await rt('/submissions/signup/mine', 'viewer', { method: 'PUT', json: { dish: 'soup' } }));
  const form = new FormData();
  form.append('file', new Blob(['a,b\n1,2\n']), 'sheet.csv');
  const file = await ok(await rt('/files', 'editor', { method: 'POST', body: form }), 201);
  return { poll: poll.id as string, note: note.id as string, file: file.id as string };
}

describe('who may browse and delete', () => {
  test('owners and editors browse; viewers and strangers learn nothing (404); signed out 401; an admin without a role 403', async () => {
    await seed();
    for (const path of ['/kv/items', '/collections/poll/items', '/submissions/signup/items', '/files/items']) {
      for (const who of ['owner', 'editor'] as const) expect((await items(path, who)).items).toHaveLength(1);
      for (const who of ['viewer', 'stranger'] as const) await expectCode(await call('GET', path, who), 404, 'NOT_FOUND');
      expect((await call('GET', path, 'anonymous')).status).toBe(401);
      await expectCode(await call('GET', path, 'admin'), 403, 'PERMISSION_DENIED');
    }
  });

  test('deletes: viewers and strangers 404, an admin without a role 403, and nothing goes', async () => {
    const ids = await seed();
    const paths = [
      '/kv/items/title',
      `/collections/poll/items/${ids.poll}`,
      `/submissions/signup/items/${w.ids.viewer}`,
      `/files/items/${ids.file}`,
    ];
    for (const path of paths) {
      for (const who of ['viewer', 'stranger'] as const) await expectCode(await call('DELETE', path, who), 404, 'NOT_FOUND');
      expect((await call('DELETE', path, 'anonymous')).status).toBe(401);
      await expectCode(await call('DELETE', path, 'admin'), 403, 'PERMISSION_DENIED');
    }
    for (const path of ['/kv/items', '/collections/poll/items', '/submissions/signup/items', '/files/items'])
      expect((await items(path)).items).toHaveLength(1);
  });

  test('a personal access token acts as its person', async () => {
    const ids = await seed();
    const { token } = await body(await w.request('owner', '/api/tokens', { method: 'POST', json: { name: 'browse' } }));
    expect((await items('/kv/items', { token })).items).toEqual([{ deletable: true, key: 'title', value: 'Team lunch' }]);
    await ok(await call('DELETE', `/collections/poll/items/${ids.poll}`, { token }));
    const viewers = await body(await w.request('viewer', '/api/tokens', { method: 'POST', json: { name: 'browse' } }));
    await expectCode(await call('GET', '/kv/items', { token: viewers.token }), 404, 'NOT_FOUND');
    await expectCode(await call('DELETE', '/kv/items/title', { token: viewers.token }), 404, 'NOT_FOUND');
  });
});

describe('what is listed', () => {
  test('the per-viewer KV scope never, not even by search', async () => {
    await seed();
    expect((await items('/kv/items')).items).toEqual([{ deletable: true, key: 'title', value: 'Team lunch' }]);
    expect((await items('/kv/items?q=dark')).items).toEqual([]);
    expect((await items('/kv/items?q=theme')).items).toEqual([]);
  });

  test('a search folds letters past ASCII on both engines ("élan" finds "ÉLAN") and either Unicode form, in keys, values, records, submissions and files', async () => {
    await setCollections(w, { poll: { preset: 'collaborative' } });
    await ok(await rt('/kv/ÉTAT', 'editor', { method: 'PUT', json: 'Prêt' }));
    await ok(await rt('/kv/motto', 'editor', { method: 'PUT', json: 'ΔELTA ÉLAN' }));
    await ok(await rt('/collections/poll', 'viewer', { method: 'POST', json: { choice: 'CRÈME BRÛLÉE' } }), 201);
    await ok(await rt('/submissions/signup/mine', 'viewer', { method: 'PUT', json: { dish: 'SOUPE À L’OIGNON' } }));
    const form = new FormData();
    form.append('file', new Blob(['x']), 'RÉSUMÉ.txt');
    await ok(await rt('/files', 'editor', { method: 'POST', body: form }), 201);
    const found = async (path: string, q: string) => (await items(`${path}?q=${encodeURIComponent(q)}`)).items.length;
    expect({
      key: await found('/kv/items', 'état'),
      value: await found('/kv/items', 'δelta élan'),
      record: await found('/collections/poll/items', 'crème brûlée'),
      submission: await found('/submissions/signup/items', 'soupe à'),
      file: await found('/files/items', 'résumé'),
    }).toEqual({ key: 1, value: 1, record: 1, submission: 1, file: 1 });
    // A Mac's decomposed spelling ("e" + U+0301), in a file's name or in the search, is the composed one.
    const mac = new FormData();
    mac.append('file', new Blob(['y']), 'Cafe\u0301 menu.txt');
    expect((await ok(await rt('/files', 'editor', { method: 'POST', body: mac }), 201)).name).toBe('Café menu.txt');
    expect({
      file: await found('/files/items', 'café'),
      record: await found('/collections/poll/items', 'cre\u0300me'),
    }).toEqual({ file: 1, record: 1 });
  });

  test("a personal preset's records are not listed to the owner, nor found by search; their own are", async () => {
    await seed();
    await ok(await rt('/collections/notes', 'owner', { method: 'POST', json: { text: "the owner's secret note" } }), 201);
    expect((await items('/collections/notes/items')).items.map((r) => r.value.text)).toEqual(["the owner's secret note"]);
    expect((await items('/collections/notes/items?q=my%20secret')).items).toEqual([]);
  });

  test('people are named as in the exports; an unconfigured collection is 404 COLLECTION_NOT_CONFIGURED', async () => {
    await seed();
    const [poll] = (await items('/collections/poll/items')).items;
    expect(poll).toEqual({
      deletable: true,
      id: expect.any(String),
      authorId: w.ids.viewer,
      name: expect.any(String),
      email: w.emails.viewer,
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      value: { choice: 'pie' },
    });
    const [submission] = (await items('/submissions/signup/items')).items;
    expect(submission).toMatchObject({ userId: w.ids.viewer, email: w.emails.viewer, value: { dish: 'soup' } });
    const [file] = (await items('/files/items')).items;
    expect(file).toMatchObject({ name: 'sheet.csv', size: 8, scope: 'shared', uploadedBy: w.ids.editor, uploaderEmail: w.emails.editor });
    await expectCode(await call('GET', '/collections/ghosts/items', 'owner'), 404, 'COLLECTION_NOT_CONFIGURED');
  });
});

describe('paging', () => {
  test('120 records in pages of 50: in order, no duplicates, no gaps, and records added meanwhile come last', async () => {
    await setCollections(w, { poll: { preset: 'collaborative' } });
    const made: string[] = [];
    for (let i = 0; i < 120; i++)
      made.push((await ok(await rt('/collections/poll', 'viewer', { method: 'POST', json: { n: i } }), 201)).id);
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const page: { items: any[]; next: string | null } = await items(
        `/collections/poll/items?limit=50${next === null ? '' : `&after=${encodeURIComponent(next)}`}`,
      );
      seen.push(...page.items.map((r) => r.id));
      next = page.next;
      // A record added between pages lands after every one listed so far.
      if (pages++ === 0) made.push((await ok(await rt('/collections/poll', 'editor', { method: 'POST', json: { n: 'late' } }), 201)).id);
    } while (next !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(made);
  });

  test('KV keys and files page by their cursors too', async () => {
    for (let i = 0; i < 7; i++) await ok(await rt(`/kv/k${i}`, 'editor', { method: 'PUT', json: i }));
    const first = await items('/kv/items?limit=3');
    expect(first.items.map((e) => e.key)).toEqual(['k0', 'k1', 'k2']);
    const rest = await items(`/kv/items?limit=5&after=${first.next}`);
    expect({ keys: rest.items.map((e) => e.key), next: rest.next }).toEqual({ keys: ['k3', 'k4', 'k5', 'k6'], next: null });
    for (const name of ['one.txt', 'two.txt', 'three.txt']) {
      const form = new FormData();
      form.append('file', new Blob([name]), name);
      await ok(await rt('/files', 'editor', { method: 'POST', body: form }), 201);
    }
    const a = await items('/files/items?limit=2');
    const b = await items(`/files/items?limit=2&after=${encodeURIComponent(a.next!)}`);
    // Files list by upload time, then id: uploads in the same millisecond have no order of their own,
    // so the pages are checked against the whole list in one page, which holds each file once.
    const whole = (await items('/files/items?limit=10')).items.map((f) => f.name);
    expect([...whole].sort()).toEqual(['one.txt', 'three.txt', 'two.txt']);
    expect([...a.items, ...b.items].map((f) => f.name)).toEqual(whole);
    expect(b.next).toBeNull();
  });

  test('malformed queries are 400 INVALID_BODY naming the parameter, never a 500', async () => {
    await setCollections(w, { poll: { preset: 'collaborative' } });
    for (const [path, word] of [
      ['/kv/items?limit=0', 'limit'],
      ['/kv/items?limit=201', 'limit'],
      ['/kv/items?limit=ten', 'limit'],
      ['/kv/items?page=2', 'page'],
      [`/kv/items?q=${'x'.repeat(201)}`, 'q'],
      [`/kv/items?after=${'x'.repeat(1025)}`, 'after'],
      ['/files/items?after=nope', 'after'],
      ['/collections/poll/items?after=..%2F', 'cursor'],
      ['/submissions/signup/items?after=a%20b', 'cursor'],
    ]) {
      const b = await expectCode(await call('GET', path!, 'owner'), 400, 'INVALID_BODY');
      expect({ path, message: b.message }).toEqual({ path, message: expect.stringContaining(word!) });
    }
    expect((await items(`/kv/items?q=${'x'.repeat(200)}`)).items).toEqual([]);
  });
});

describe('search', () => {
  test('matches keys and value text, case-insensitively; % and _ are themselves', async () => {
    for (const [key, value] of [
      ['a%b', 'plain'],
      ['axb', 'plain'],
      ['a_c', 'plain'],
      ['abc', 'plain'],
      ['menu', { dish: 'Apple PIE', price: '50%' }],
    ] as const)
      await ok(await rt(`/kv/${encodeURIComponent(key)}`, 'editor', { method: 'PUT', json: value }));
    const keys = async (q: string) => (await items(`/kv/items?q=${encodeURIComponent(q)}`)).items.map((e) => e.key);
    expect(await keys('%')).toEqual(['a%b', 'menu']);
    expect(await keys('_')).toEqual(['a_c']);
    expect(await keys('a_')).toEqual(['a_c']);
    expect(await keys('apple pie')).toEqual(['menu']);
    expect(await keys('AB')).toEqual(['abc']);
    expect(await keys('\\')).toEqual([]);
  });

  test('collections, submissions and files search too, and page within the results', async () => {
    await setCollections(w, { poll: { preset: 'collaborative' } });
    for (const choice of ['pie', 'soup', 'pie_100%', 'pie'])
      await ok(await rt('/collections/poll', 'viewer', { method: 'POST', json: { choice } }), 201);
    const first = await items('/collections/poll/items?q=pie&limit=2');
    const second = await items(`/collections/poll/items?q=pie&limit=2&after=${first.next}`);
    expect([...first.items, ...second.items].map((r) => r.value.choice)).toEqual(['pie', 'pie_100%', 'pie']);
    expect(second.next).toBeNull();
    expect((await items('/collections/poll/items?q=_100%25')).items.map((r) => r.value.choice)).toEqual(['pie_100%']);
    await ok(await rt('/submissions/signup/mine', 'viewer', { method: 'PUT', json: { dish: 'soup' } }));
    await ok(await rt('/submissions/signup/mine', 'editor', { method: 'PUT', json: { dish: 'salad' } }));
    expect((await items('/submissions/signup/items?q=SALAD')).items.map((s) => s.userId)).toEqual([w.ids.editor]);
    const form = new FormData();
    form.append('file', new Blob(['x']), 'report_2026.pdf');
    await ok(await rt('/files', 'editor', { method: 'POST', body: form }), 201);
    expect((await items('/files/items?q=t_2')).items.map((f) => f.name)).toEqual(['report_2026.pdf']);
    expect((await items('/files/items?q=x_2')).items).toEqual([]);
  });
});

describe('deleting', () => {
  test('owners and editors remove a shared key, a record, a submission and a file: gone through the runtime API too', async () => {
    const ids = await seed();
    expect(await ok(await call('DELETE', '/kv/items/title', 'editor'))).toEqual({ ok: true });
    await expectCode(await rt('/kv/title', 'viewer'), 404, 'NOT_FOUND');
    expect(await ok(await call('DELETE', `/collections/poll/items/${ids.poll}`, 'owner'))).toEqual({
      ok: true,
      attachmentCleanupFailed: false,
    });
    await expectCode(await rt(`/collections/poll/${ids.poll}`, 'viewer'), 404, 'NOT_FOUND');
    expect(await ok(await call('DELETE', `/submissions/signup/items/${w.ids.viewer}`, 'editor'))).toEqual({ ok: true });
    await expectCode(await rt('/submissions/signup/mine', 'viewer'), 404, 'NOT_FOUND');
    expect(await ok(await call('DELETE', `/files/items/${ids.file}`, 'owner'))).toEqual({ ok: true });
    await expectCode(await rt(`/files/${ids.file}/content`, 'viewer'), 404, 'NOT_FOUND');
    for (const path of ['/kv/items', '/collections/poll/items', '/submissions/signup/items', '/files/items'])
      expect((await items(path)).items).toEqual([]);
    // The services' own audit entries, and the dashboard's: what went, never the value.
    const audit = await w.app.ctx.audit.forCanvas(w.canvas.id, 50);
    const actions = audit.map((e) => e.action);
    for (const action of ['collection.record-deleted', 'submission.removed', 'file.deleted']) expect(actions).toContain(action);
    const deleted = audit.filter((e) => e.action === 'data.deleted').map((e) => e.detail);
    expect(deleted).toHaveLength(4);
    expect(deleted).toContainEqual({ kind: 'kv', item: 'title' });
    expect(deleted).toContainEqual({ kind: 'collection', name: 'poll', item: ids.poll });
    expect(JSON.stringify(deleted)).not.toContain('pie');
  });

  test("the policy's delete rule holds: a personal record the owner cannot read is 404 and stays", async () => {
    const ids = await seed();
    await expectCode(await call('DELETE', `/collections/notes/items/${ids.note}`, 'owner'), 404, 'NOT_FOUND');
    expect((await ok(await rt(`/collections/notes/${ids.note}`, 'viewer'))).value).toEqual({ text: 'my secret note' });
  });

  test('a policy that lets owners read but not delete: 403, and the record stays', async () => {
    await setCollections(w, { board: { preset: 'managed', overrides: { delete: 'own' } } });
    const made = await ok(await rt('/collections/board', 'editor', { method: 'POST', json: { pinned: true } }), 201);
    // The page says so first: the dashboard offers Delete only to the record's author.
    expect((await items('/collections/board/items', 'owner')).items.map((r) => r.deletable)).toEqual([false]);
    expect((await items('/collections/board/items', 'editor')).items.map((r) => r.deletable)).toEqual([true]);
    await expectCode(await call('DELETE', `/collections/board/items/${made.id}`, 'owner'), 403, 'PERMISSION_DENIED');
    expect((await items('/collections/board/items')).items).toHaveLength(1);
    await ok(await call('DELETE', `/collections/board/items/${made.id}`, 'editor'));
    expect((await items('/collections/board/items')).items).toEqual([]);
  });

  test('malformed items are 400; a record or file already gone is 404; keys and submissions are idempotent', async () => {
    await setCollections(w, { poll: { preset: 'collaborative' } });
    await expectCode(await call('DELETE', '/collections/poll/items/NOT-AN-ID', 'owner'), 400, 'INVALID_BODY');
    await expectCode(await call('DELETE', '/files/items/NOPE', 'owner'), 400, 'INVALID_BODY');
    await expectCode(await call('DELETE', '/kv/items/user', 'owner'), 400, 'INVALID_BODY');
    await expectCode(await call('DELETE', '/collections/poll/items/000000000aaaaaaaaaaa', 'owner'), 404, 'NOT_FOUND');
    await expectCode(await call('DELETE', '/files/items/aaaaaaaaaaaaaaaaaaaa', 'owner'), 404, 'NOT_FOUND');
    await ok(await call('DELETE', '/kv/items/never-there', 'owner'));
    await ok(await call('DELETE', `/submissions/signup/items/${w.ids.viewer}`, 'owner'));
  });
});

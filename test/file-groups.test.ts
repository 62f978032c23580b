// passes: embedded, s3, cluster
// Issue 15 item 4: files in a file group follow the group's policy entry;
// files attached to a collection record follow the record (seeing it to see
// them, updating it to add, rename or remove them), vanish with it, and
// their bytes go when the record is deleted.
import { describe, expect, test } from 'bun:test';
import { BLOB_GRACE_MS } from '../src/blobs/gc.ts';
import { setPolicy } from './collections-fixtures.ts';
import { expectCode } from './expect-code.ts';
import { body, ON_CLUSTER } from './harness.ts';
import { useWorld, type Who, type World } from './world.ts';

const POLICY = {
  collections: { notes: { preset: 'personal' }, board: { preset: 'contributions' } },
  fileGroups: { photos: { preset: 'contributions' }, handouts: { preset: 'managed' } },
};

function form(fields: Record<string, string>, content = 'bytes'): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  f.append('file', new Blob([content], { type: 'text/plain' }), 'a.txt');
  return f;
}

const files = (w: World, who: Who | 'viewer2', path = '', init: RequestInit & { json?: unknown } = {}) =>
  w.request(who, `/v1/c/${w.canvas.slug}/files${path}`, init);
const upload = (w: World, who: Who | 'viewer2', fields: Record<string, string>, content?: string) =>
  files(w, who, '', { method: 'POST', body: form(fields, content) });
const listed = async (w: World, who: Who | 'viewer2') =>
  ((await body(await files(w, who))).files as Array<{ id: string }>).map((f) => f.id);
const record = async (w: World, who: Who | 'viewer2', collection: string) =>
  (await w.expectOk('POST', `/v1/c/${w.canvas.slug}/collections/${collection}`, who, 'a record', 201)).id as string;

describe('file groups', () => {
  const w = useWorld({ canvas: { capabilities: { backend: true, kv: true, files: true } } });

  test('contributions: everyone uploads and sees; only the author (and managers) rename and delete', async () => {
    await setPolicy(w, POLICY);
    const res = await upload(w, 'viewer', { group: 'photos' });
    expect(res.status).toBe(201);
    const mine = await body(res);
    expect(await listed(w, 'viewer2')).toContain(mine.id);
    const entry = ((await body(await files(w, 'viewer2'))).files as any[]).find((f) => f.id === mine.id);
    expect(entry).toMatchObject({ group: 'photos', uploadedBy: w.ids.viewer });
    expect((await files(w, 'viewer2', `/${mine.id}/content`)).status).toBe(200);
    await expectCode(await files(w, 'viewer2', `/${mine.id}`, { method: 'PATCH', json: { name: 'x.txt' } }), 403, 'PERMISSION_DENIED');
    await expectCode(await files(w, 'viewer2', `/${mine.id}`, { method: 'DELETE' }), 403, 'PERMISSION_DENIED');
    expect((await files(w, 'viewer', `/${mine.id}`, { method: 'PATCH', json: { name: 'mine.txt' } })).status).toBe(200);
    expect((await files(w, 'editor', `/${mine.id}`, { method: 'DELETE' })).status).toBe(200);
  });

  test('managed: viewers read what managers upload, and may not upload', async () => {
    await setPolicy(w, POLICY);
    await expectCode(await upload(w, 'viewer', { group: 'handouts' }), 403, 'PERMISSION_DENIED');
    const handout = await body(await upload(w, 'editor', { group: 'handouts' }));
    expect((await files(w, 'viewer', `/${handout.id}/content`)).status).toBe(200);
  });

  test('a group taken out of the policy hides its files (content included); putting it back restores them', async () => {
    await setPolicy(w, POLICY);
    const photo = await body(await upload(w, 'viewer', { group: 'photos' }));
    await setPolicy(w, { ...POLICY, fileGroups: { handouts: { preset: 'managed' } } });
    expect(await listed(w, 'owner')).not.toContain(photo.id);
    await expectCode(await files(w, 'owner', `/${photo.id}/content`), 404, 'NOT_FOUND');
    await expectCode(await upload(w, 'viewer', { group: 'photos' }), 404, 'COLLECTION_NOT_CONFIGURED');
    await setPolicy(w, POLICY);
    expect(await listed(w, 'owner')).toContain(photo.id);
  });

  test('scope, group and collection are alternatives; an attachment needs both collection and recordId', async () => {
    await setPolicy(w, POLICY);
    const alternatives: Array<Record<string, string>> = [
      { scope: 'shared', group: 'photos' },
      { group: 'photos', collection: 'board', recordId: 'x' },
      { collection: 'board' },
    ];
    for (const fields of alternatives) {
      await expectCode(await upload(w, 'editor', fields), 400, 'INVALID_BODY');
    }
  });
});

describe('record attachments', () => {
  /** Moves the app's clock: blob collection spares bytes written within the grace period (an upload may be about to use them). */
  let ahead = 0;
  const w = useWorld({ now: () => Date.now() + ahead, canvas: { capabilities: { backend: true, kv: true, files: true } } });

  test("inherit the record's rights: a personal record's attachment is its author's alone, owners included", async () => {
    await setPolicy(w, POLICY);
    const note = await record(w, 'viewer', 'notes');
    const res = await upload(w, 'viewer', { collection: 'notes', recordId: note });
    expect(res.status).toBe(201);
    const att = await body(res);
    expect(await listed(w, 'viewer')).toContain(att.id);
    expect(await listed(w, 'owner')).not.toContain(att.id);
    await expectCode(await files(w, 'owner', `/${att.id}/content`), 404, 'NOT_FOUND');
    // Someone who cannot see the record cannot attach to it either.
    await expectCode(await upload(w, 'viewer2', { collection: 'notes', recordId: note }), 404, 'NOT_FOUND');
  });

  test('uploading needs read and update on the record: readable but not updatable is 403', async () => {
    await setPolicy(w, POLICY);
    const post = await record(w, 'viewer', 'board');
    const att = await body(await upload(w, 'viewer', { collection: 'board', recordId: post }));
    expect((await files(w, 'viewer2', `/${att.id}/content`)).status).toBe(200);
    await expectCode(await upload(w, 'viewer2', { collection: 'board', recordId: post }), 403, 'PERMISSION_DENIED');
    await expectCode(await files(w, 'viewer2', `/${att.id}`, { method: 'DELETE' }), 403, 'PERMISSION_DENIED');
    await expectCode(await upload(w, 'viewer', { collection: 'board', recordId: 'a'.repeat(20) }), 404, 'NOT_FOUND');
  });

  test('deleting the record removes its attachments at once, rows and bytes; other records keep theirs', async () => {
    await setPolicy(w, POLICY);
    const post = await record(w, 'viewer', 'board');
    const other = await record(w, 'viewer', 'board');
    const bytes = `attached ${crypto.randomUUID()}`;
    const gone = await body(await upload(w, 'viewer', { collection: 'board', recordId: post }, bytes));
    const kept = await body(await upload(w, 'viewer', { collection: 'board', recordId: other }, bytes));
    const hashOf = async (id: string) => (await w.app.ctx.sql.get<{ hash: string }>('SELECT hash FROM files WHERE id = ?1', id))?.hash;
    /** In the store (with a remote tier, as on the cluster: in the bucket). */
    const stored = async (hash: string) => (await w.app.ctx.blobs.sizeOf(hash)) !== null;
    const hash = (await hashOf(gone.id))!;
    expect(await w.expectOk('DELETE', `/v1/c/${w.canvas.slug}/collections/board/${post}`, 'viewer')).toEqual({
      ok: true,
      attachmentCleanupFailed: false,
    });
    await expectCode(await files(w, 'viewer', `/${gone.id}/content`), 404, 'NOT_FOUND');
    expect(await hashOf(gone.id)).toBeUndefined();
    // The same bytes are still used by the other record's file: the blob stays for it.
    expect(await stored(hash)).toBe(true);
    expect((await files(w, 'viewer', `/${kept.id}/content`)).status).toBe(200);
    // Without another user, the bytes go too (once past the grace period that protects uploads in flight).
    ahead += BLOB_GRACE_MS + 1000;
    await w.expectOk('DELETE', `/v1/c/${w.canvas.slug}/collections/board/${other}`, 'viewer');
    // On the cluster a node collects at once only the blobs it holds a copy of; the others wait for a sweep (by the bucket's ages).
    if (ON_CLUSTER) await w.app.ctx.blobGc.sweep();
    expect(await stored(hash)).toBe(false);
  });

  test('a collection taken out of the policy hides its attachments; the data stays for when it returns', async () => {
    await setPolicy(w, POLICY);
    const post = await record(w, 'editor', 'board');
    const att = await body(await upload(w, 'editor', { collection: 'board', recordId: post }));
    await setPolicy(w, { ...POLICY, collections: { notes: { preset: 'personal' } } });
    await expectCode(await files(w, 'editor', `/${att.id}/content`), 404, 'NOT_FOUND');
    await setPolicy(w, POLICY);
    expect((await files(w, 'editor', `/${att.id}/content`)).status).toBe(200);
  });
});

// passes: embedded, s3, cluster
// The gallery (issue 18 item 6): listed by owners and editors, shown to the
// people who may open each canvas, searchable; a templatable canvas becomes
// a new canvas of the person using it, with the same live files.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { body, type TestApp } from './harness.ts';
import { expectCode } from './expect-code.ts';
import { World, type WorldCanvas } from './world.ts';

let app: TestApp;
let w: World;
let shared: WorldCanvas;
let hidden: WorldCanvas;
beforeAll(async () => {
  w = await new World({ reset: 'none' }).start();
  app = w.app;
  shared = await w.newCanvas({
    title: 'Team Template',
    settings: { accessMode: 'whole_org' },
    files: { 'index.html': '<h1>template</h1>', 'a.js': '1' },
  });
  hidden = await w.newCanvas({ title: 'Private Template', files: { 'index.html': '<h1>private</h1>' } });
});
afterAll(() => w.close());

const put = (c: WorldCanvas, json: unknown, who: 'owner' | 'editor' | 'viewer' | 'stranger' = 'owner') =>
  app.request(`/api/canvases/${c.id}/gallery`, { method: 'PUT', cookie: w.cookie[who], json });
const galleryOf = async (who: 'owner' | 'stranger' | 'viewer', q = '') =>
  (await body(await app.request(`/api/gallery?q=${encodeURIComponent(q)}`, { cookie: w.cookie[who] }))).canvases.map(
    (c: { title: string }) => c.title,
  );

describe('the gallery', () => {
  test('owners and editors list a published canvas; viewers and strangers cannot; a draft cannot be listed', async () => {
    expect(await body(await put(shared, { listed: true }, 'editor'))).toEqual({ listed: true, templatable: false });
    // Like every management route: the canvas is not theirs to manage, so it is not there.
    await expectCode(await put(shared, { listed: false }, 'viewer'), 404, 'NOT_FOUND');
    await expectCode(await put(shared, { listed: false }, 'stranger'), 404, 'NOT_FOUND');
    const draft = await w.newCanvas({ title: 'Draft' });
    await expectCode(await put(draft, { listed: true }), 404, 'NOT_PUBLISHED');
    await expectCode(await put(shared, { listed: 'yes' }), 400, 'INVALID_BODY');
    // The right to the canvas is asked before the body is read.
    await expectCode(await put(shared, { listed: 'yes' }, 'viewer'), 404, 'NOT_FOUND');
  });

  test('shows each person only what they may open, searched by title', async () => {
    expect(await body(await put(hidden, { listed: true }))).toEqual({ listed: true, templatable: false });
    expect((await galleryOf('owner')).sort()).toEqual(['Private Template', 'Team Template']);
    // A stranger in the org sees the whole-org canvas only; the restricted one stays out of sight.
    expect(await galleryOf('stranger')).toEqual(['Team Template']);
    expect(await galleryOf('owner', 'private')).toEqual(['Private Template']);
    expect(await galleryOf('owner', '%')).toEqual([]);
  });

  test('a search folds letters past ASCII on both engines ("équipe" finds "Équipe")', async () => {
    const equipe = await w.newCanvas({ title: 'Équipe ΔELTA', settings: { accessMode: 'whole_org' }, files: { 'index.html': 'x' } });
    await put(equipe, { listed: true });
    expect(await galleryOf('stranger', 'équipe')).toEqual(['Équipe ΔELTA']);
    expect(await galleryOf('stranger', 'δelta')).toEqual(['Équipe ΔELTA']);
    await put(equipe, { listed: false });
  });

  test('unpublishing unlists', async () => {
    const temp = await w.newCanvas({ title: 'Short lived', settings: { accessMode: 'whole_org' }, files: { 'index.html': 'x' } });
    await put(temp, { listed: true });
    expect(await galleryOf('stranger')).toContain('Short lived');
    await w.unpublish(temp);
    expect(await galleryOf('stranger')).not.toContain('Short lived');
  });

  test('use as template: only when offered; a new canvas of the caller with the same live files and its key once', async () => {
    const use = (c: WorldCanvas, json: unknown = {}) =>
      app.request(`/api/gallery/${c.id}/use`, { method: 'POST', cookie: w.cookie.stranger, json });
    await expectCode(await use(shared), 403, 'PERMISSION_DENIED');
    // The right to the template before the body: 403 and 404 before 400.
    await expectCode(await use(shared, { title: '' }), 403, 'PERMISSION_DENIED');
    await put(shared, { templatable: true });
    await expectCode(await use(hidden), 404, 'NOT_FOUND');
    await expectCode(await use(hidden, { title: '' }), 404, 'NOT_FOUND');
    await expectCode(await use(shared, { title: '' }), 400, 'INVALID_BODY');
    const res = await use(shared, { title: 'My copy' });
    expect(res.status).toBe(201);
    const made = await body(res);
    expect(made).toMatchObject({ title: 'My copy', role: 'owner', publicationState: 'published', ownerId: w.ids.stranger });
    expect(made.apiKey).toMatch(/^easel_sk_/);
    const files = await body(await app.request(`/api/canvases/${made.id}/files`, { cookie: w.cookie.stranger }));
    const source = await body(await app.request(`/api/canvases/${shared.id}/files`, { cookie: w.cookie.owner }));
    expect(files.files).toEqual(source.files);
    const page = await app.request(`/c/${made.slug}/`, { cookie: w.cookie.stranger });
    expect(await page.text()).toBe('<h1>template</h1>');
  });
});

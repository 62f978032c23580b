// passes: embedded, cluster
// GET /api/canvases/{id}/usage and /capabilities: what the dashboard's
// runtime settings show (counts move with the runtime API; only the people
// managing the canvas may ask).
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { body } from './harness.ts';
import { expectCode } from './expect-code.ts';
import { World } from './world.ts';

let w: World;
beforeAll(async () => {
  w = await new World({ reset: 'none' }).start();
  await w.deploy();
});
afterAll(() => w.close());

test('shared KV keys and file bytes, against the quotas', async () => {
  const usage = () => w.app.request(`/api/canvases/${w.canvas.id}/usage`, { cookie: w.cookie.editor }).then(body);
  expect(await usage()).toEqual({
    kv: { sharedKeys: 0, sharedKeysMax: 10_000, userKeysMaxPerPerson: 1_000 },
    files: { bytes: 0, bytesMax: expect.any(Number) },
  });
  for (const key of ['a', 'b'])
    await w.app.request(`/v1/c/${w.canvas.slug}/kv/${key}`, { method: 'PUT', cookie: w.cookie.editor, json: 1 });
  await w.app.request(`/v1/c/${w.canvas.slug}/kv/user/mine`, { method: 'PUT', cookie: w.cookie.viewer, json: 1 });
  const form = new FormData();
  form.append('file', new Blob(['x'.repeat(1234)]), 'notes.txt');
  expect((await w.app.request(`/v1/c/${w.canvas.slug}/files`, { method: 'POST', cookie: w.cookie.editor, body: form })).status).toBe(201);
  expect(await usage()).toMatchObject({ kv: { sharedKeys: 2 }, files: { bytes: 1234 } });
  await expectCode(await w.app.request(`/api/canvases/${w.canvas.id}/usage`, { cookie: w.cookie.viewer }), 404, 'NOT_FOUND');
});

test('capability states name why a switch is not in effect', async () => {
  const states = () => w.app.request(`/api/canvases/${w.canvas.id}/capabilities`, { cookie: w.cookie.owner }).then(body);
  expect((await states()).effective.kv).toEqual({ effective: true });
  await w.capabilities({ ai: true });
  expect((await states()).effective.ai).toEqual({
    effective: false,
    reason: 'operator_disabled',
    hint: 'The instance has no AI provider key; an administrator must configure one.',
  });
  await w.capabilities({ backend: false });
  expect(await states()).toMatchObject({
    switches: { backend: false, kv: true },
    effective: { kv: { effective: false, reason: 'backend_off' } },
  });
  await expectCode(await w.app.request(`/api/canvases/${w.canvas.id}/capabilities`, { cookie: w.cookie.stranger }), 404, 'NOT_FOUND');
});

test("the presets' rights come with the states (the dashboard explains presets with them)", async () => {
  const { presets } = await w.app.request(`/api/canvases/${w.canvas.id}/capabilities`, { cookie: w.cookie.editor }).then(body);
  expect(Object.keys(presets)).toEqual(['personal', 'submissions', 'contributions', 'managed', 'collaborative']);
  expect(presets.contributions).toEqual({
    read: 'viewers',
    create: 'viewers',
    update: 'own_and_editors',
    delete: 'own_and_editors',
    increment: 'own_and_editors',
  });
  expect(presets.managed).toEqual({ read: 'viewers', create: 'editors', update: 'editors', delete: 'editors', increment: 'editors' });
});

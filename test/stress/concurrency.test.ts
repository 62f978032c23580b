// passes: embedded, cluster
// Races over a real socket (issue 19 item 1, concurrency, a first part): many
// requests at once against the compare-and-swap and the counters. Exactly one
// deploy wins a publication token; no increment is lost, on a KV key or on a
// collection record.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { zipSync } from 'fflate';
import { body, type TestApp } from '../harness.ts';
import { World, type WorldCanvas } from '../world.ts';

const N = 50;
let w: World;
let app: TestApp;
let canvas: WorldCanvas;

beforeAll(async () => {
  w = await new World({ reset: 'none', listen: true }).start();
  app = w.app;
  canvas = await w.newCanvas({ files: { 'index.html': '<h1>v1</h1>' } });
  await w.capabilities({ expectedRuntimePolicy: null, runtimePolicy: { collections: { tallies: { preset: 'collaborative' } } } }, canvas);
});
afterAll(() => w.close());

describe(`${N} at once`, () => {
  test('deploys with the same expectedPublicationToken: exactly one publishes, the others are PUBLICATION_CHANGED', async () => {
    const token = (await body(await app.request(`/v1/canvases/${canvas.id}`, { headers: { authorization: `Bearer ${canvas.apiKey}` } })))
      .publicationToken as string;
    const answers = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        app
          .request(`/v1/canvases/${canvas.id}/deploy?expectedPublicationToken=${token}`, {
            method: 'PUT',
            body: zipSync({ 'index.html': new TextEncoder().encode(`<h1>racer ${i}</h1>`) }),
            headers: { authorization: `Bearer ${canvas.apiKey}` },
          })
          .then(async (res) => ({ status: res.status, body: await body(res) })),
      ),
    );
    const won = answers.filter((a) => a.status === 200);
    expect(won).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).map((a) => a.body.code)).toEqual(Array(N - 1).fill('PUBLICATION_CHANGED'));
    const versions = await body(
      await app.request(`/v1/canvases/${canvas.id}/versions`, { headers: { authorization: `Bearer ${canvas.apiKey}` } }),
    );
    expect(versions.versions.filter((v: { current: boolean }) => v.current)[0].number).toBe(won[0]!.body.version);
  });

  test('increments of one KV key and one collection record: no count lost', async () => {
    const kv = await Promise.all(
      Array.from({ length: N }, () =>
        app
          .request(`/v1/c/${canvas.slug}/kv/hits/increment`, { method: 'POST', cookie: w.cookie.editor, json: { by: 1 } })
          .then((r) => r.status),
      ),
    );
    expect(kv.every((s) => s === 200)).toBe(true);
    expect((await body(await app.request(`/v1/c/${canvas.slug}/kv/hits`, { cookie: w.cookie.viewer }))).value).toBe(N);

    const record = await body(
      await app.request(`/v1/c/${canvas.slug}/collections/tallies`, { method: 'POST', cookie: w.cookie.editor, json: 0 }),
    );
    const inc = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        app
          .request(`/v1/c/${canvas.slug}/collections/tallies/${record.id}/increment`, {
            method: 'POST',
            cookie: i % 2 ? w.cookie.editor : w.cookie.viewer,
            json: { by: 1 },
          })
          .then((r) => r.status),
      ),
    );
    expect(inc.every((s) => s === 200)).toBe(true);
    const final = await body(await app.request(`/v1/c/${canvas.slug}/collections/tallies/${record.id}`, { cookie: w.cookie.owner }));
    expect(final.value).toBe(N);
  });
});

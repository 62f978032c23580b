// passes: embedded, cluster
// What a canvas's pages asked for that its runtime policy does not configure
// (issue 38 item 6): a collection or file group refused with
// COLLECTION_NOT_CONFIGURED is named in GET /api/canvases/{id}/capabilities
// (`unconfigured`) until the policy configures it; only people who manage
// the canvas see it.
import { describe, expect, test } from 'bun:test';
import { expectCode } from './expect-code.ts';
import { setCollections } from './collections-fixtures.ts';
import { useWorld } from './world.ts';

describe('unconfigured names the pages asked for', () => {
  const w = useWorld({ canvas: { guest: false } });
  const rt = (path: string, init: RequestInit & { json?: unknown } = {}) => w.request('viewer', `/v1/c/${w.canvas.slug}${path}`, init);
  const unconfigured = async () => {
    await Promise.all(w.app.nodes.map((n) => n.features.policyMisses.settled()));
    return (await w.expectOk('GET', `/api/canvases/${w.canvas.id}/capabilities`, 'editor')).unconfigured;
  };

  test('a refused collection and file group are named, newest first; configuring one takes it off the list', async () => {
    expect(await unconfigured()).toEqual([]);
    await expectCode(await rt('/collections/poll'), 404, 'COLLECTION_NOT_CONFIGURED');
    const form = new FormData();
    form.set('group', 'photos');
    form.set('file', new Blob(['x']), 'x.txt');
    await expectCode(await rt('/files', { method: 'POST', body: form }), 404, 'COLLECTION_NOT_CONFIGURED');
    const named = await unconfigured();
    expect(named.map((m: { kind: string; name: string }) => `${m.kind}:${m.name}`).sort()).toEqual(['collection:poll', 'fileGroup:photos']);
    expect(named.every((m: { lastAt: number }) => m.lastAt > 0)).toBe(true);
    await setCollections(w, { poll: { preset: 'contributions' } });
    expect((await unconfigured()).map((m: { name: string }) => m.name)).toEqual(['photos']);
  });

  test("the dashboard or MCP naming a collection (browse, export, delete) is not the page's asking: nothing is noted", async () => {
    const data = `/api/canvases/${w.canvas.id}/data/collections/ledger`;
    await expectCode(await w.request('owner', `${data}/items`), 404, 'COLLECTION_NOT_CONFIGURED');
    await expectCode(await w.request('owner', data), 404, 'COLLECTION_NOT_CONFIGURED');
    await expectCode(
      await w.request('owner', `${data}/items/abcdefghij0123456789`, { method: 'DELETE' }),
      404,
      'COLLECTION_NOT_CONFIGURED',
    );
    expect((await unconfigured()).filter((m: { name: string }) => m.name === 'ledger')).toEqual([]);
    await expectCode(await rt('/collections/ledger'), 404, 'COLLECTION_NOT_CONFIGURED');
    expect((await unconfigured()).filter((m: { name: string }) => m.name === 'ledger')).toHaveLength(1);
  });

  test('a page asking again and again is written once a minute per node, and viewers never see the list', async () => {
    for (let i = 0; i < 20; i++) await expectCode(await rt('/collections/votes'), 404, 'COLLECTION_NOT_CONFIGURED');
    expect((await unconfigured()).filter((m: { name: string }) => m.name === 'votes')).toHaveLength(1);
    expect((await w.request('viewer', `/api/canvases/${w.canvas.id}/capabilities`)).status).toBe(404);
    const rows = await w.app.ctx.sql.all<{ n: number }>(
      "SELECT COUNT(*) AS n FROM policy_misses WHERE canvas_id = ?1 AND name = 'votes'",
      w.canvas.id,
    );
    expect(Number(rows[0]!.n)).toBe(1);
  });
});

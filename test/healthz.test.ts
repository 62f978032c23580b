// GET /healthz checks what a request needs: the database and the blob store (issue 22 item 6).
import { expect, test } from 'bun:test';
import { renameSync } from 'node:fs';
import { body, startTestApp } from './harness.ts';

test('200 when both answer; 503 naming the blob store or the database when one does not', async () => {
  const app = await startTestApp();
  const backends = { database: 'sqlite', blobs: 'local', coordination: 'local' };
  try {
    const healthy = await app.request('/healthz');
    expect([healthy.status, await body(healthy)]).toEqual([200, { ok: true, version: app.ctx.version, backends }]);
    const root = app.ctx.blobs.root;
    renameSync(root, `${root}-moved`);
    const noBlobs = await app.request('/healthz');
    expect([noBlobs.status, await body(noBlobs)]).toEqual([503, { ok: false, version: app.ctx.version, backends, failed: ['blobs'] }]);
    renameSync(`${root}-moved`, root);
    app.ctx.db!.close();
    const noDb = await app.request('/healthz');
    expect([noDb.status, await body(noDb)]).toEqual([503, { ok: false, version: app.ctx.version, backends, failed: ['database'] }]);
  } finally {
    await app.close().catch(() => {});
  }
});

// passes: embedded, cluster
// GET /healthz checks what a request needs: the database and the blob store (issue 22 item 6).
import { expect, test } from 'bun:test';
import { renameSync } from 'node:fs';
import { body, ON_CLUSTER, startTestApp } from './harness.ts';

test('200 when both answer; 503 naming the blob store or the database when one does not', async () => {
  const app = await startTestApp();
  // On the cluster pass each node names the shared backends, and answers for its own.
  const backends = ON_CLUSTER
    ? { database: 'postgres', blobs: 's3', coordination: 'redis' }
    : { database: 'sqlite', blobs: 'local', coordination: 'local' };
  const [node, ...others] = app.nodes;
  try {
    for (const each of app.nodes) {
      const healthy = await each.request('/healthz');
      expect([healthy.status, await body(healthy)]).toEqual([200, { ok: true, version: app.ctx.version, backends }]);
    }
    // The node's own blob directory (its local cache in front of a remote store).
    const root = node!.ctx.blobs.root;
    renameSync(root, `${root}-moved`);
    const noBlobs = await node!.request('/healthz');
    expect([noBlobs.status, await body(noBlobs)]).toEqual([503, { ok: false, version: app.ctx.version, backends, failed: ['blobs'] }]);
    for (const other of others) expect((await other.request('/healthz')).status).toBe(200);
    renameSync(`${root}-moved`, root);
    await node!.ctx.sql.close();
    // Straight to the node: its database is gone, so there is nothing to catch up on.
    const noDb = await app.easel.handle(new Request(`${app.base}/healthz`), null);
    expect([noDb.status, await body(noDb)]).toEqual([503, { ok: false, version: app.ctx.version, backends, failed: ['database'] }]);
  } finally {
    await app.close().catch(() => {});
  }
});

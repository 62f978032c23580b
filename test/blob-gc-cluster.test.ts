// passes: embedded — starts its own Postgres and S3 server
// Blob garbage collection across two nodes on one Postgres database and one
// S3 bucket (issue 21: "garbage collection works the same"). A deploy on one
// node that re-uses an old blob nothing references must never publish a
// version whose blob another node's sweep deletes: the write's hold is seen
// by every node, and a deletion already marked makes the write wait and put
// the bytes back. Each test forces one interleaving by stopping a node at the
// point that matters (the sweep just before it deletes, the deploy just after
// the bucket answered).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sha256Hex } from '../src/ids.ts';
import { createDeployCanvas, deploy, zipOf } from './deploy-fixtures.ts';
import type { TestApp } from './harness.ts';
import { ManualClock } from './manual-clock.ts';
import { gate, nextEvent } from './signals.ts';
import { startPgCluster, type PgCluster } from './support/pg-cluster.ts';

describe('blob garbage collection on two nodes', () => {
  const clock = new ManualClock(Date.now());
  let cluster: PgCluster;
  let a: TestApp;
  let b: TestApp;
  let runs = 0;

  beforeAll(async () => {
    cluster = await startPgCluster({ now: clock.now });
    ({ a, b } = cluster);
  });
  afterAll(() => cluster.close());

  /** Bytes in the bucket that nothing references, with a local copy on both nodes, past the grace period. */
  async function oldOrphan(): Promise<{ content: string; hash: string }> {
    const content = `an old orphan, run ${++runs} ${Date.now()}`;
    const bytes = new TextEncoder().encode(content);
    await a.ctx.blobs.putBytes(bytes);
    await b.ctx.blobs.putBytes(bytes);
    clock.advance(2 * 3600_000);
    return { content, hash: sha256Hex(content) };
  }

  async function page(node: TestApp, slug: string, cookie: string, path: string): Promise<[number, string]> {
    const res = await node.request(`/c/${slug}/${path}`, { cookie });
    return [res.status, await res.text()];
  }

  test('a sweep that marked a blob for deletion makes a deploy of it on the other node wait, then put it back', async () => {
    const { content, hash } = await oldOrphan();
    const c = await createDeployCanvas(a);
    // Node A's sweep stops with the blob marked and every check passed, just before the bucket deletes it.
    const removal = gate();
    const remove = a.ctx.blobs.remove.bind(a.ctx.blobs);
    a.ctx.blobs.remove = (h) => (h === hash ? removal.pass(() => remove(h)) : remove(h));
    const sweeping = a.ctx.blobGc.sweep();
    await removal.reached;

    // Node B re-uses its local copy: without the mark it would ask the bucket now, hear "there", and publish.
    const waiting = nextEvent(b, 'blobs.deletion-awaited');
    const deploying = deploy(b, c, zipOf({ 'index.html': '<p>re-used</p>', 'old.txt': content }));
    await Promise.race([waiting, deploying]);
    waiting.cancel();
    removal.open();
    expect(await sweeping).toBeGreaterThanOrEqual(1);
    expect((await deploying).status).toBe(200);

    expect(await a.ctx.blobs.sizeOf(hash)).toBe(content.length);
    // Node A's copy went with its deletion: it fetches the bytes B put back.
    expect(a.ctx.blobs.has(hash)).toBe(false);
    expect(await page(a, c.slug, c.ownerCookie, 'old.txt')).toEqual([200, content]);
    expect(await page(b, c.slug, c.ownerCookie, 'old.txt')).toEqual([200, content]);
  });

  test("a deploy on one node holds the blobs it found in the bucket: the other node's sweep leaves them", async () => {
    const { content, hash } = await oldOrphan();
    const c = await createDeployCanvas(a);
    // Node B's deploy stops right after the bucket said it has the blob, before its version row exists.
    const answered = gate();
    const lostRemotely = b.ctx.blobs.lostRemotely.bind(b.ctx.blobs);
    b.ctx.blobs.lostRemotely = (hashes) => (hashes.includes(hash) ? answered.pass(() => lostRemotely(hashes)) : lostRemotely(hashes));
    const deploying = deploy(b, c, zipOf({ 'index.html': '<p>held</p>', 'held.txt': content }));
    await answered.reached;

    await a.ctx.blobGc.sweep();
    expect(await a.ctx.blobs.sizeOf(hash)).toBe(content.length);
    answered.open();
    expect((await deploying).status).toBe(200);

    // Referenced now: later sweeps keep it too, and both nodes serve it.
    clock.advance(2 * 3600_000);
    await a.ctx.blobGc.sweep();
    expect(await a.ctx.blobs.sizeOf(hash)).toBe(content.length);
    expect(await page(a, c.slug, c.ownerCookie, 'held.txt')).toEqual([200, content]);
    expect(await page(b, c.slug, c.ownerCookie, 'held.txt')).toEqual([200, content]);
  });

  test("a collection that died mid-delete holds nothing up past its mark's age; holds are let go with their write", async () => {
    const { content, hash } = await oldOrphan();
    // A mark left by a node that died before it finished.
    await a.ctx.sql.run('INSERT INTO blob_deletions (hash, node, started_at) VALUES (?1, ?2, ?3)', hash, 'a-dead-node', clock.now());
    clock.advance(61_000);
    const c = await createDeployCanvas(b);
    const deployed = await deploy(b, c, zipOf({ 'index.html': '<p>after a dead mark</p>', 'late.txt': content }));
    expect(deployed.status).toBe(200);
    expect(await page(a, c.slug, c.ownerCookie, 'late.txt')).toEqual([200, content]);
    expect(await a.ctx.sql.all('SELECT hash FROM blob_holds')).toEqual([]);
  });
});

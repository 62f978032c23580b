// passes: embedded, cluster
// Refused uploads cannot fill the disk (issue 23 item 4): a refusal found
// after the file part was stored removes the blob at once, and scope fields
// sent first (as the SDK does) refuse before any byte is stored.
import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expectCode } from './expect-code.ts';
import { useWorld } from './world.ts';

const BOUNDARY = 'easel-refused-boundary';
const enc = new TextEncoder();
const file = (data: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${data}\r\n`;
const field = (name: string, value: string) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const body = (...parts: string[]) => new Uint8Array(enc.encode(parts.join('') + `--${BOUNDARY}--\r\n`));

/** Every blob file in the data directory's store (one level of fan-out folders, src/blobs/layout.ts). */
function blobCount(dataDir: string): number {
  const root = join(dataDir, 'blobs');
  let n = 0;
  for (const a of readdirSync(root, { withFileTypes: true })) {
    if (!a.isDirectory() || a.name.length !== 2) continue;
    n += readdirSync(join(root, a.name)).length;
  }
  return n;
}

describe('refused runtime uploads leave nothing behind', () => {
  const w = useWorld({ canvas: { capabilities: { backend: true, files: true } } });
  const upload = (who: 'viewer' | 'editor', payload: Uint8Array<ArrayBuffer>) =>
    w.request(who, `/v1/c/${w.canvas.slug}/files`, {
      method: 'POST',
      body: payload,
      headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    });

  test('a viewer sending the file before scope=shared: 403, and the stored bytes are gone at once', async () => {
    const before = blobCount(w.app.dataDir);
    const unique = `refused-${crypto.randomUUID()}`;
    await expectCode(await upload('viewer', body(file(unique), field('scope', 'shared'))), 403, 'PERMISSION_DENIED');
    // No scope at all means shared: the same.
    await expectCode(await upload('viewer', body(file(unique + '-2'))), 403, 'PERMISSION_DENIED');
    expect(blobCount(w.app.dataDir)).toBe(before);
  });

  test('scope sent first (the SDK order) refuses before storing; a submission after the file is still accepted', async () => {
    const before = blobCount(w.app.dataDir);
    await expectCode(
      await upload('viewer', body(field('scope', 'shared'), file(`first-${crypto.randomUUID()}`))),
      403,
      'PERMISSION_DENIED',
    );
    expect(blobCount(w.app.dataDir)).toBe(before);
    const ok = await upload('viewer', body(file(`mine-${crypto.randomUUID()}`), field('scope', 'submission')));
    expect(ok.status).toBe(201);
    expect(blobCount(w.app.dataDir)).toBe(before + 1);
  });

  test("bytes another file already uses are never removed by someone else's refusal", async () => {
    const shared = `shared-${crypto.randomUUID()}`;
    expect((await upload('editor', body(field('scope', 'shared'), file(shared)))).status).toBe(201);
    const before = blobCount(w.app.dataDir);
    await expectCode(await upload('viewer', body(file(shared))), 403, 'PERMISSION_DENIED');
    expect(blobCount(w.app.dataDir)).toBe(before);
    const listed = (await w.expectOk('GET', `/v1/c/${w.canvas.slug}/files`, 'editor')).files as Array<{ id: string }>;
    expect(listed.length).toBeGreaterThan(0);
    for (const f of listed) expect((await w.request('editor', `/v1/c/${w.canvas.slug}/files/${f.id}/content`)).status).toBe(200);
  });
});

// passes: embedded, s3
// A finalize killed mid-way leaves its 60-second lease on the upload handle;
// the next start gives it back at once, so the retry publishes instead of
// answering UPLOAD_IN_PROGRESS for a minute (issue 19: nothing dangling after
// recovery). The crash itself is simulated by the lease a dead process left.
import { expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp } from './harness.ts';
import { createKeyedCanvas, begin, finalize } from './upload-fixtures.ts';
import { sha256Hex } from '../src/ids.ts';

test('a lease left by a dead process is released at start; the retried finalize publishes', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'easel-lease-'));
  try {
    const first = await startTestApp({ dataDir, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    const c = await createKeyedCanvas(first);
    const page = '<h1>after the crash</h1>';
    const begun = await begin(first, c, { manifest: [{ path: 'index.html', hash: sha256Hex(page), size: page.length }] });
    const uploadId = begun.body.uploadId as string;
    await first.request(`/v1/canvases/${c.id}/uploads/${uploadId}/blobs/${sha256Hex(page)}`, {
      method: 'PUT',
      body: page,
      headers: { authorization: `Bearer ${c.key}` },
    });
    // The process dies while its finalize holds the lease.
    first.ctx.db!.query('UPDATE upload_sessions SET lease_until = ? WHERE id = ?').run(Date.now() + 60_000, uploadId);
    expect((await finalize(first, c, uploadId)).body.code).toBe('UPLOAD_IN_PROGRESS');
    await first.close();

    const second = await startTestApp({ dataDir, env: { EASEL_RATELIMIT_ENABLED: 'false' } });
    try {
      expect(second.logs.some((l) => l.msg === 'upload: finalize leases left by a previous process released')).toBe(true);
      const done = await finalize(second, c, uploadId);
      expect([done.status, done.body.outcome]).toEqual([200, 'published']);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

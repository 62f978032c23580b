// passes: embedded, cluster
// Issue 23 item 17: a client that goes away in the middle of its upload is
// not a server error. A deploy whose body stops halfway (the CLI killed, a
// network drop) used to be logged as "unhandled error" with a 500.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { watch } from 'node:fs';
import { connect } from 'node:net';
import { deployTmpDir } from '../src/deploy/zip/deploy.ts';
import { createDeployCanvas } from './deploy-fixtures.ts';
import { startTestApp, type TestApp } from './harness.ts';

const MiB = 1024 * 1024;

describe('a client that aborts its upload', () => {
  let live: TestApp;
  beforeAll(async () => {
    live = await startTestApp({ listen: true });
  });
  afterAll(() => live.close());

  /**
   * Sends the headers and the first part of a `declared`-byte body to `path`,
   * waits until the server spools it (`spooled` resolves), then cuts the
   * connection.
   */
  async function abortMidBody(path: string, key: string, declared: number, spooled: Promise<unknown>): Promise<void> {
    const port = Number(new URL(live.base).port);
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `PUT ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${key}\r\nContent-Length: ${declared}\r\n\r\n` +
        'PK\u0003\u0004' +
        'x'.repeat(64 * 1024),
    );
    await spooled;
    socket.destroy();
  }

  /** Resolves once a new spool file appears in the deploy's temporary folder: the handler is reading the body. */
  function spoolStarted(): { started: Promise<void>; stop(): void } {
    let stop = () => {};
    const started = new Promise<void>((resolve) => {
      const watcher = watch(deployTmpDir(live.ctx), (_event, name) => {
        if (name?.startsWith('body-')) resolve();
      });
      stop = () => watcher.close();
    });
    return { started, stop: () => stop() };
  }

  test('PUT deploy cut off mid-body: one info line "request aborted", no error, no 500', async () => {
    const canvas = await createDeployCanvas(live);
    const path = `/v1/canvases/${canvas.id}/deploy`;
    const spool = spoolStarted();
    const finished = live.nextLog((l) => l.msg === 'request' && l.path === path);
    try {
      await abortMidBody(path, canvas.key, 10 * MiB, spool.started);
    } finally {
      spool.stop();
    }
    const request = await finished;
    const lines = live.logs.filter((l) => l.requestId === request.requestId);
    expect(lines.find((l) => l.msg === 'request aborted')).toMatchObject({ level: 'info', method: 'PUT', path });
    expect(lines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    expect(live.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(request.status).not.toBe(500);
    // Nothing of the cut-off upload stays behind, and the canvas is untouched.
    expect((await live.ctx.canvases.byId(canvas.id))?.currentVersionId ?? null).toBeNull();
  });
});

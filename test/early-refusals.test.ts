// passes: embedded — one listener's handling of unread bodies, the same on every storage
// Early refusals reach clients that stream without waiting for 100 Continue
// (fetch, undici, Node's http): the server answers before it reads the body,
// and the answer must arrive every time, on a warm server, whatever the
// declared length. Bun's own body-size refusal answers nothing the client can
// read (an empty 413, then a reset while the client is still writing), so no
// route may leave the refusal to it. Covered: 401, 403, 404, 413, 429 and 507
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { World } from './world.ts';

const MiB = 1024 * 1024;

interface Case {
  name: string;
  method: string;
  path: () => string;
  headers: () => Record<string, string>;
  /** The declared Content-Length. */
  length: number;
  status: number;
  /** The body's `code`, or its `error` for the Deploy API's auth and throttling shape. */
  code: string;
}

/** Writes the head, then zeros as fast as the socket takes them, reading all the while; stops once the answer is in. */
function rawAttempt(port: number, c: Case): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const zeros = Buffer.alloc(64 * 1024);
    let received = Buffer.alloc(0);
    let sent = 0;
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      socket.destroy();
      if (error) return reject(error);
      const text = received.toString();
      const head = text.slice(0, text.indexOf('\r\n\r\n'));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: text.slice(head.length + 4) });
    };
    const complete = () => {
      const text = received.toString();
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return false;
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, split));
      return length !== null && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1]);
    };
    socket.on('connect', () => {
      const headers = Object.entries({ host: `127.0.0.1:${port}`, ...c.headers(), 'content-length': String(c.length) })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`${c.method} ${c.path()} HTTP/1.1\r\n${headers}\r\n`);
      const pump = () => {
        while (!done && sent < c.length) {
          sent += zeros.length;
          if (!socket.write(zeros)) return void socket.once('drain', pump);
        }
      };
      pump();
    });
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (complete()) finish();
    });
    socket.on('error', (err) => finish(new Error(`${err.message} after ${sent} bytes sent and ${received.length} received`)));
    socket.on('close', () =>
      finish(complete() ? undefined : new Error(`closed after ${sent} bytes sent with ${JSON.stringify(received.toString())}`)),
    );
  });
}

/** fetch with a streamed body of the declared length (duplex: 'half'), as browsers' and Node's fetch send one. */
async function fetchAttempt(base: string, c: Case): Promise<{ status: number; body: string }> {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= c.length) return controller.close();
      sent += chunk.length;
      controller.enqueue(sent > c.length ? chunk.subarray(0, c.length - (sent - chunk.length)) : chunk);
    },
  });
  const res = await fetch(`${base}${c.path()}`, {
    method: c.method,
    headers: { ...c.headers(), 'content-length': String(c.length) },
    body,
    duplex: 'half',
  } as RequestInit);
  return { status: res.status, body: await res.text() };
}

function expectAnswer(c: Case, answer: { status: number; body: string }) {
  const parsed = JSON.parse(answer.body) as { code?: string; error?: string };
  expect({ case: c.name, status: answer.status, code: parsed.code ?? parsed.error }).toEqual({
    case: c.name,
    status: c.status,
    code: c.code,
  });
}

/** The case's refusal, 20 times in a row over a raw socket, then through fetch. */
function refusalArrives(c: Case, port: () => number, base: () => string) {
  test(`${c.name}: the refusal arrives 20 times in a row over a raw socket, and through fetch`, async () => {
    for (let i = 0; i < 20; i++) expectAnswer(c, await rawAttempt(port(), c));
    for (let i = 0; i < 3; i++) expectAnswer(c, await fetchAttempt(base(), c));
  });
}

describe('early refusals on a warm server', () => {
  const w = new World({
    listen: true,
    reset: 'none',
    env: { EASEL_RATELIMIT_ENABLED: 'true', EASEL_RATELIMIT_DEPLOY_PER_MIN: '1000' },
  });
  let port = 0;
  let uploadId = '';
  beforeAll(async () => {
    await w.start();
    port = Number(new URL(w.app.base).port);
    // Warm: a deploy has gone through this server before any refusal.
    await w.deploy(w.canvas, { 'index.html': '<h1>warm</h1>' });
    const begun = await w.app.request(`/v1/canvases/${w.canvas.id}/uploads`, {
      method: 'POST',
      origin: null,
      headers: { authorization: `Bearer ${w.canvas.apiKey}` },
      json: { manifest: [{ path: 'big.bin', hash: 'a'.repeat(64), size: 1000 }] },
    });
    expect(begun.status).toBe(200);
    uploadId = ((await begun.json()) as { uploadId: string }).uploadId;
  });
  afterAll(() => w.close());

  const key = () => ({ authorization: `Bearer ${w.canvas.apiKey}` });
  const cases: Case[] = [
    {
      name: 'a deploy over the ZIP cap',
      method: 'PUT',
      path: () => `/v1/canvases/${w.canvas.id}/deploy`,
      headers: key,
      length: 120 * MiB,
      status: 413,
      code: 'CANVAS_TOO_LARGE',
    },
    {
      name: 'a deploy declaring more than Bun itself would take',
      method: 'PUT',
      path: () => `/v1/canvases/${w.canvas.id}/deploy`,
      headers: key,
      length: 4 * 1024 * MiB,
      status: 413,
      code: 'CANVAS_TOO_LARGE',
    },
    {
      name: 'a deploy with a wrong key',
      method: 'PUT',
      path: () => `/v1/canvases/${w.canvas.id}/deploy`,
      headers: () => ({ authorization: 'Bearer easel_sk_wrong' }),
      length: 120 * MiB,
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'a staged blob larger than its manifest entry',
      method: 'PUT',
      path: () => `/v1/canvases/${w.canvas.id}/uploads/${uploadId}/blobs/${'a'.repeat(64)}`,
      headers: key,
      length: 200 * MiB,
      status: 413,
      code: 'FILE_TOO_LARGE',
    },
    {
      name: 'a runtime file upload over the file cap',
      method: 'POST',
      path: () => `/v1/c/${w.canvas.slug}/files`,
      headers: () => ({ cookie: w.cookie.editor, 'content-type': 'multipart/form-data; boundary=x' }),
      length: 200 * MiB,
      status: 413,
      code: 'FILE_TOO_LARGE',
    },
    {
      name: 'a runtime file upload without a session',
      method: 'POST',
      path: () => `/v1/c/${w.canvas.slug}/files`,
      headers: () => ({ 'content-type': 'multipart/form-data; boundary=x' }),
      length: 10 * MiB,
      status: 401,
      code: 'unauthorized',
    },
    {
      name: 'an authored canvas on a canvas without authoring',
      method: 'POST',
      path: () => `/v1/c/${w.canvas.slug}/authoring`,
      headers: () => ({ cookie: w.cookie.editor, 'content-type': 'multipart/form-data; boundary=x' }),
      length: 200 * MiB,
      status: 403,
      code: 'CAPABILITY_DISABLED',
    },
    {
      name: 'a draft file written by a stranger',
      method: 'PUT',
      path: () => `/api/canvases/${w.canvas.id}/draft/file?path=big.bin`,
      headers: () => ({ cookie: w.cookie.stranger, origin: new URL(w.app.ctx.config.baseUrl).origin }),
      length: 200 * MiB,
      status: 404,
      code: 'NOT_FOUND',
    },
  ];

  for (const c of cases)
    refusalArrives(
      c,
      () => port,
      () => w.app.base,
    );
});

describe('throttled and disk-full refusals on a warm server', () => {
  let free = 10_000 * MiB;
  const w = new World({
    listen: true,
    reset: 'none',
    freeDiskBytes: () => free,
    env: { EASEL_RATELIMIT_ENABLED: 'true', EASEL_RATELIMIT_DEPLOY_PER_MIN: '1', EASEL_MIN_FREE_DISK_MB: '100' },
  });
  let port = 0;
  beforeAll(async () => {
    await w.start();
    port = Number(new URL(w.app.base).port);
    // Warm, and this minute's one deploy is spent.
    await w.deploy(w.canvas, { 'index.html': '<h1>warm</h1>' });
    free = 50 * MiB;
  });
  afterAll(() => w.close());

  const cases: Case[] = [
    {
      name: 'a deploy over the rate limit',
      method: 'PUT',
      path: () => `/v1/canvases/${w.canvas.id}/deploy`,
      headers: () => ({ authorization: `Bearer ${w.canvas.apiKey}` }),
      length: 120 * MiB,
      status: 429,
      code: 'rate_limited',
    },
    {
      name: 'a runtime file upload when the disk is nearly full',
      method: 'POST',
      path: () => `/v1/c/${w.canvas.slug}/files`,
      headers: () => ({ cookie: w.cookie.editor, 'content-type': 'multipart/form-data; boundary=x' }),
      length: 10 * MiB,
      status: 507,
      code: 'INSUFFICIENT_STORAGE',
    },
  ];

  for (const c of cases)
    refusalArrives(
      c,
      () => port,
      () => w.app.base,
    );
});

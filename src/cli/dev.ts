// `easel dev [<dir>]`: a folder served as a canvas, with the SDK and the whole
// runtime API, reloading the page when a file changes. It runs a throwaway
// Easel in this process (a temporary data directory, dev sign-in, no rate
// limits), signed in as you, with the canvas's backend switched on; every
// change is deployed to it (only the changed files travel), then the open
// pages reload. A small front server on the printed port adds your session
// to each request (so no sign-in page), injects the reload script into HTML
// pages, and passes realtime WebSockets through. Nothing outlives Ctrl-C.
import { mkdtempSync, rmSync, statSync, watch, type FSWatcher } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, resolve } from 'node:path';
import type { Server, ServerWebSocket } from 'bun';
import { DeployApi } from './api-client.ts';
import { parseArgs, UsageError } from './args.ts';
import type { Env } from './people-api.ts';
import { findLink } from './project-link.ts';
import type { CliIO } from './progress.ts';
import { openInBrowser, runCommand } from './run.ts';
import { deployFolder } from './staged-deploy.ts';

export const DEV_USAGE = `Usage: easel dev [<dir>] [--port <n>] [--no-browser]

  Serves a site folder as a canvas on a throwaway local Easel, with the SDK and
  the runtime API (KV, files, realtime, collections…; AI when EASEL_AI_API_KEY
  is set), signed in as you, and reloads the page whenever a file changes.
  <dir>          the site folder (default: the linked folder, else .)
  --port <n>     the port to serve on (default: any free one)
  --no-browser   print the URL without opening a browser
When it looks right: easel deploy.`;

const DEV_EMAIL = 'you@localhost';
const DEV_SLUG = 'dev';
/** Changes arriving this close together are one redeploy. */
const SETTLE_MS = 120;
const RELOAD_SCRIPT = `new EventSource('/__easel_dev/events').onmessage = (e) => { if (e.data === 'reload') location.reload(); };`;

export interface DevServer {
  /** The canvas page on the front server. */
  url: string;
  /** Stops both servers and removes the throwaway data directory. */
  stop(): Promise<void>;
}

export interface DevDeps {
  cwd: string;
  openUrl?: (url: string) => boolean;
  /** Resolves when the command should stop (Ctrl-C); never, by default. */
  until?: Promise<void>;
}

export function devCommand(argv: string[], env: Env, io: CliIO, deps: DevDeps): Promise<number> {
  return runCommand('dev', DEV_USAGE, argv, io, async () => {
    const args = parseArgs(argv, { values: ['--port'], flags: ['--no-browser'] });
    if (args.help) return io.stdout(DEV_USAGE + '\n');
    if (args.positional.length > 1) throw new UsageError('one folder at a time');
    const linked = findLink(deps.cwd);
    const dir = resolve(deps.cwd, args.positional[0] ?? (linked ? resolve(linked.folder, linked.link.dir ?? '.') : '.'));
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`${dir} is not a folder`);
    const port = args.values['--port'] === undefined ? 0 : Number(args.values['--port']);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port takes a port number');
    const dev = await startDev(dir, port, env, io);
    if (!args.flags.has('--no-browser')) (deps.openUrl ?? openInBrowser)(dev.url);
    await (deps.until ?? new Promise<void>(() => {}));
    await dev.stop();
  });
}

export async function startDev(dir: string, port: number, env: Env, io: CliIO): Promise<DevServer> {
  const { loadConfig } = await import('../config.ts');
  const { createCore } = await import('../foundation.ts');
  const { startServer } = await import('../server/listener.ts');
  const dataDir = mkdtempSync(`${tmpdir()}/easel-dev-`);
  const sockets = new Map<ServerWebSocket<DevSocket>, WebSocket>();
  const listeners = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let backend = '';
  let cookie = '';
  const front: Server<DevSocket> = Bun.serve<DevSocket>({
    hostname: '127.0.0.1',
    port,
    idleTimeout: 0,
    fetch: (request, server) => frontFetch(request, server),
    websocket: {
      open(ws) {
        const upstream = new WebSocket(`${backend.replace(/^http/, 'ws')}${ws.data.path}`, {
          headers: { cookie, origin: ws.data.origin },
        } as unknown as string[]);
        sockets.set(ws, upstream);
        upstream.binaryType = 'arraybuffer';
        const early: Array<string | ArrayBuffer> = [];
        ws.data.send = (m) => (upstream.readyState === WebSocket.OPEN ? upstream.send(m) : early.push(m));
        upstream.onopen = () => {
          for (const m of early.splice(0)) upstream.send(m);
        };
        upstream.onmessage = (e) => ws.send(e.data as string | ArrayBuffer);
        upstream.onclose = (e) => ws.close(e.code === 1005 ? 1000 : e.code, e.reason);
      },
      message(ws, message) {
        ws.data.send?.(
          typeof message === 'string'
            ? message
            : (message.buffer.slice(message.byteOffset, message.byteOffset + message.byteLength) as ArrayBuffer),
        );
      },
      close(ws) {
        sockets.get(ws)?.close();
        sockets.delete(ws);
      },
    },
  });
  const url = `http://localhost:${front.port}`;

  const config = loadConfig({
    EASEL_DATA_DIR: dataDir,
    EASEL_HOST: '127.0.0.1',
    EASEL_PORT: '0',
    EASEL_BASE_URL: url,
    EASEL_AUTH_MODE: 'dev',
    EASEL_RATELIMIT_ENABLED: 'false',
    EASEL_LOG_LEVEL: 'warn',
    EASEL_AUTHORING: 'on',
    ...(env.EASEL_AI_API_KEY ? { EASEL_AI_API_KEY: env.EASEL_AI_API_KEY } : {}),
    ...(env.EASEL_AI_BASE_URL ? { EASEL_AI_BASE_URL: env.EASEL_AI_BASE_URL } : {}),
  });
  // The configured port (0) is rewritten to the real one by the listener; the base URL stays the front's.
  const running = await startServer(await createCore(config));
  backend = running.url;
  const call = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(backend + path, {
      method,
      headers: { origin: url, cookie, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: json === undefined ? null : JSON.stringify(json),
    });
    if (!res.ok) throw new Error(`dev setup: ${method} ${path} answered ${res.status} ${await res.text()}`);
    return { res, body: (await res.json()) as Record<string, any> };
  };
  const login = await call('POST', '/auth/dev/login', { email: DEV_EMAIL, name: 'You' });
  cookie = login.res.headers.get('set-cookie')!.split(';')[0]!;
  const { body: canvas } = await call('POST', '/api/canvases', { title: basename(dir) || 'dev', slug: DEV_SLUG });
  await call('PATCH', `/api/canvases/${canvas.id}/capabilities`, {
    backend: true,
    kv: true,
    files: true,
    realtime: true,
    authoring: true,
    ...(env.EASEL_AI_API_KEY ? { ai: true } : {}),
  });
  const api = new DeployApi(backend, canvas.apiKey as string);
  const quiet: CliIO = { stdout: () => {}, stderr: () => {}, isTTY: false };
  const opts = {
    source: dir,
    canvasId: canvas.id as string,
    apiBase: backend,
    key: canvas.apiKey as string,
    routes: '/v1/canvases' as const,
    releaseId: null,
    expectToken: null,
    preview: false,
    // Every save publishes (and reloads the page), changed or not.
    force: true,
    json: false,
    followSymlinks: false,
  };
  const publish = async (why: string) => {
    try {
      const { result } = await deployFolder(api, opts, quiet);
      if (result.outcome === 'unchanged') return;
      io.stderr(
        `${why}: version ${result.version}, ${result.fileCount} file(s)${result.warnings.map((w) => `\n  warning: ${w}`).join('')}\n`,
      );
      for (const c of listeners) {
        try {
          c.enqueue(new TextEncoder().encode('data: reload\n\n'));
        } catch {
          listeners.delete(c);
        }
      }
    } catch (err) {
      io.stderr(`${why}: not published: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  };
  await publish('published');

  const pageUrl = `${url}/c/${DEV_SLUG}/`;
  io.stdout(
    `easel dev: ${dir} at ${pageUrl}\n(a throwaway Easel in ${dataDir}, signed in as ${DEV_EMAIL}; it is removed when you stop with Ctrl-C)\n`,
  );

  let pending: Timer | undefined;
  let changed = new Set<string>();
  let queue = Promise.resolve();
  const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, name) => {
    if (name && name.split(/[\\/]/).some((part) => part.startsWith('.'))) return;
    if (name) changed.add(String(name));
    clearTimeout(pending);
    pending = setTimeout(() => {
      const names = [...changed].slice(0, 3).join(', ');
      changed = new Set();
      queue = queue.then(() => publish(`changed ${names || 'files'}`));
    }, SETTLE_MS);
  });

  function frontFetch(request: Request, server: Server<DevSocket>): Response | Promise<Response> | undefined {
    const { pathname, search } = new URL(request.url);
    if (pathname === '/__easel_dev/reload.js')
      return new Response(RELOAD_SCRIPT, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' } });
    if (pathname === '/__easel_dev/events') {
      let mine: ReadableStreamDefaultController<Uint8Array>;
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          mine = c;
          listeners.add(c);
          c.enqueue(new TextEncoder().encode(': connected\n\n'));
        },
        cancel() {
          listeners.delete(mine);
        },
      });
      return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store' } });
    }
    if (pathname === '/') return Response.redirect(pageUrl, 302);
    if (request.headers.get('upgrade')?.toLowerCase() === 'websocket') {
      if (server.upgrade(request, { data: { path: pathname + search, origin: request.headers.get('origin') ?? url } })) return undefined;
      return new Response('upgrade failed', { status: 400 });
    }
    return proxy(request, pathname + search);
  }

  async function proxy(request: Request, path: string): Promise<Response> {
    const headers = new Headers(request.headers);
    // Your session on every request: the page never meets a sign-in form.
    if (!/(?:^|;\s*)easel_session=/.test(headers.get('cookie') ?? ''))
      headers.set('cookie', [headers.get('cookie'), cookie].filter(Boolean).join('; '));
    headers.set('accept-encoding', 'identity');
    const answer = await fetch(backend + path, {
      method: request.method,
      headers,
      body: ['GET', 'HEAD'].includes(request.method) ? null : request.body,
      redirect: 'manual',
    });
    const out = new Headers(answer.headers);
    if (!(out.get('content-type') ?? '').startsWith('text/html') || request.method === 'HEAD')
      return new Response(answer.body, { status: answer.status, headers: out });
    const page = await answer.text();
    const tag = '<script src="/__easel_dev/reload.js"></script>';
    const withReload = /<\/body>/i.test(page) ? page.replace(/<\/body>/i, `${tag}</body>`) : page + tag;
    out.delete('content-length');
    out.delete('etag');
    out.set('cache-control', 'no-store');
    return new Response(withReload, { status: answer.status, headers: out });
  }

  return {
    url: pageUrl,
    async stop() {
      clearTimeout(pending);
      watcher.close();
      for (const c of listeners) c.close();
      for (const upstream of sockets.values()) upstream.close();
      await front.stop(true);
      await running.shutdown();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface DevSocket {
  path: string;
  origin: string;
  send?: (message: string | ArrayBuffer) => void;
}

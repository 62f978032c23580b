// The pure pieces of page serving: ranges, encodings, hosts, paths, gate passes.
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isCompressible, preferredEncodings } from '../src/serve/compress.ts';
import { cookieValues } from '../src/http/cookies.ts';
import { BodyCache } from '../src/serve/body-cache.ts';
import { decodePasses, encodePasses } from '../src/serve/gate-pass.ts';
import { canvasSlugFromHost } from '../src/http/canvas-host.ts';
import { decodeCanvasPath } from '../src/serve/resolve.ts';
import { matchingEtag, parseRange } from '../src/serve/send-file.ts';
import { safeNext } from '../src/http/same-origin-path.ts';

describe('parseRange', () => {
  test.each([
    ['bytes=0-0', 10, { start: 0, end: 0 }],
    ['bytes=0-', 10, { start: 0, end: 9 }],
    ['bytes=9-20', 10, { start: 9, end: 9 }],
    ['bytes=-3', 10, { start: 7, end: 9 }],
    ['bytes=-30', 10, { start: 0, end: 9 }],
    [' bytes=2-3 ', 10, { start: 2, end: 3 }],
    ['bytes=10-', 10, 'unsatisfiable'],
    ['bytes=-0', 10, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=-', 10, null],
    ['bytes=3-2', 10, null],
    ['bytes=0-1,3-4', 10, null],
    ['bits=0-1', 10, null],
    ['bytes=a-b', 10, null],
  ] as const)('%s of %d', (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected as never);
  });
});

describe('encodings', () => {
  test('preferredEncodings honours q-values and prefers brotli', () => {
    expect(preferredEncodings(null)).toEqual([]);
    expect(preferredEncodings('gzip, deflate, br')).toEqual(['br', 'gzip']);
    expect(preferredEncodings('gzip;q=1.0, br;q=0')).toEqual(['gzip']);
    expect(preferredEncodings('*')).toEqual(['br', 'gzip']);
    expect(preferredEncodings('*;q=0, gzip')).toEqual(['gzip']);
    expect(preferredEncodings('identity')).toEqual([]);
    expect(preferredEncodings('x-gzip')).toEqual(['gzip']);
    expect(preferredEncodings('BR;Q=0.5')).toEqual(['br']);
  });

  test('isCompressible: text, scripts, data, svg, wasm; not images, archives or video', () => {
    for (const t of [
      'text/html; charset=utf-8',
      'text/css',
      'text/javascript',
      'application/javascript',
      'application/json',
      'application/manifest+json',
      'image/svg+xml',
      'application/xml',
      'application/wasm',
      'application/ld+json',
      'font/ttf',
      'application/vnd.api+json',
    ]) {
      expect({ t, c: isCompressible(t) }).toEqual({ t, c: true });
    }
    for (const t of [
      'image/png',
      'image/jpeg',
      'image/webp',
      'font/woff2',
      'application/zip',
      'video/mp4',
      'application/octet-stream',
      'application/pdf',
    ]) {
      expect({ t, c: isCompressible(t) }).toEqual({ t, c: false });
    }
  });

  test('matchingEtag: any representation of the blob, weak or strong', () => {
    const h = 'a'.repeat(64);
    expect(matchingEtag(`"${h}"`, h)).toBe(`"${h}"`);
    expect(matchingEtag(`W/"${h}-br"`, h)).toBe(`"${h}-br"`);
    expect(matchingEtag(`"x", "${h}-gz"`, h)).toBe(`"${h}-gz"`);
    expect(matchingEtag('*', h)).toBe(`"${h}"`);
    expect(matchingEtag('"x"', h)).toBeNull();
  });
});

describe('hosts and paths', () => {
  const config = { urlMode: 'subdomain' as const, canvasHost: 'easel.test:8080' };
  test('canvasSlugFromHost', () => {
    expect(canvasSlugFromHost(config, 'demo.easel.test:8080')).toBe('demo');
    expect(canvasSlugFromHost(config, 'Demo.EASEL.test:8080')).toBe('demo');
    expect(canvasSlugFromHost(config, 'easel.test:8080')).toBeNull();
    expect(canvasSlugFromHost(config, 'demo.easel.test')).toBeNull();
    expect(canvasSlugFromHost(config, 'a.b.easel.test:8080')).toBeNull();
    expect(canvasSlugFromHost(config, '-x.easel.test:8080')).toBeNull();
    expect(canvasSlugFromHost(config, 'demo.evileasel.test:8080')).toBeNull();
    expect(canvasSlugFromHost(config, null)).toBeNull();
    expect(canvasSlugFromHost({ ...config, urlMode: 'path' }, 'demo.easel.test:8080')).toBeNull();
  });

  test('decodeCanvasPath', () => {
    expect(decodeCanvasPath('')).toBe('');
    expect(decodeCanvasPath('a/b%20c.html')).toBe('a/b c.html');
    expect(decodeCanvasPath('caf%C3%A9/')).toBe('café/');
    expect(decodeCanvasPath('%E0%A4%A')).toBeNull();
    expect(decodeCanvasPath('a/%2e%2e/b')).toBeNull();
    expect(decodeCanvasPath('a%2Fb')).toBeNull();
    expect(decodeCanvasPath('a%00')).toBeNull();
    // Nothing to decode: answered without decoding, with the same refusals.
    expect(decodeCanvasPath('assets/app.js')).toBe('assets/app.js');
    expect(decodeCanvasPath('dir/')).toBe('dir/');
    expect(decodeCanvasPath('..a/b..c/.d')).toBe('..a/b..c/.d');
    for (const bad of ['..', '.', 'a/..', 'a/../b', './a', 'a/./b', '../a', 'a\0b'])
      expect({ bad, r: decodeCanvasPath(bad) }).toEqual({ bad, r: null });
  });

  test('safeNext stays inside the canvas', () => {
    const base = 'http://easel.test';
    expect(safeNext('/c/demo/x?y=1', '/c/demo/', base)).toBe('/c/demo/x?y=1');
    expect(safeNext('/c/demo/x#top', '/c/demo/', base)).toBe('/c/demo/x#top');
    expect(safeNext(null, '/c/demo/', base)).toBe('/c/demo/');
    expect(safeNext('/c/demox/', '/c/demo/', base)).toBe('/c/demo/');
    expect(safeNext('/c/demo/../other/', '/c/demo/', base)).toBe('/c/demo/');
    expect(safeNext('/c/demo/%2e%2e/other/', '/c/demo/', base)).toBe('/c/demo/');
    expect(safeNext('http://easel.test/c/demo/x', '/c/demo/', base)).toBe('/c/demo/x');
    expect(safeNext('/a\r\nSet-Cookie: x', '/', 'http://demo.apps.test')).toBe('/');
    expect(safeNext('/ok/path', '/', 'http://demo.apps.test')).toBe('/ok/path');
  });

  // Issue 23 item 9: each of these made the browser leave the canvas's host (subdomain mode: base "/").
  test.each([
    '//evil.example/',
    '/\t/evil.example/',
    '/\r/evil.example/',
    '/\n/evil.example/',
    '/\t\t/evil.example',
    '\t//evil.example',
    '/\\evil.example',
    '\\/evil.example',
    '/.//evil.example',
    '/./%2e/..//evil.example',
    'http://evil.example/',
    'http://demo.apps.test.evil.example/',
    'https://demo.apps.test/',
    'javascript:alert(1)',
  ])('safeNext refuses %j: back to the canvas root', (next) => {
    expect(safeNext(next, '/', 'http://demo.apps.test')).toBe('/');
    expect(safeNext(next, '/c/demo/', 'http://easel.test')).toBe('/c/demo/');
  });
});

describe('gate passes', () => {
  const secret = Buffer.alloc(32, 1);
  test('round-trip, and nothing survives a wrong secret or an edit', () => {
    const passes = [
      { canvasId: 'abc123', passwordVersion: 3, issuedAt: 1_700_000_000_000 },
      { canvasId: 'def456', passwordVersion: 1, issuedAt: 1_700_000_000_001 },
    ];
    const value = encodePasses(secret, passes);
    expect(decodePasses(secret, value)).toEqual(passes);
    expect(decodePasses(Buffer.alloc(32, 2), value)).toEqual([]);
    expect(decodePasses(secret, value.replace('abc123', 'abc124'))).toEqual([]);
    expect(decodePasses(secret, value.slice(0, -2))).toEqual([]);
    expect(decodePasses(secret, undefined)).toEqual([]);
    expect(decodePasses(secret, 'no-dot')).toEqual([]);
    expect(decodePasses(secret, 'x'.repeat(5000))).toEqual([]);
  });
});

describe('cookies', () => {
  test('cookieValues: every value of a name in order, quotes stripped, escapes decoded (bad ones kept raw)', () => {
    const header = ' easel_session=abc ; other="q%20v"; easel_session=second; bad=%E0%A4%A; empty=; noeq; =x; my_easel_session=no';
    expect(cookieValues(header, 'easel_session')).toEqual(['abc', 'second']);
    expect(cookieValues(header, 'other')).toEqual(['q v']);
    expect(cookieValues(header, 'bad')).toEqual(['%E0%A4%A']);
    expect(cookieValues(header, 'empty')).toEqual(['']);
    expect(cookieValues(header, 'noeq')).toEqual([]);
    expect(cookieValues(null, 'a')).toEqual([]);
    expect(cookieValues('a="', 'a')).toEqual(['"']);
  });
});

describe('BodyCache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'easel-body-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, size: number): string => {
    const path = join(dir, name);
    writeFileSync(path, new Uint8Array(size).fill(name.charCodeAt(0)));
    return path;
  };

  test('small files become in-memory Blobs, answered without a promise once held', async () => {
    const cache = new BodyCache(1024, 512);
    const path = file('a', 100);
    let asked = 0;
    const first = await cache.get('a', 100, () => (asked++, path));
    expect(first).toBeInstanceOf(Blob);
    expect(first.size).toBe(100);
    unlinkSync(path);
    const again = cache.get('a', 100, () => (asked++, path));
    expect(again).not.toBeInstanceOf(Promise);
    expect(asked).toBe(1);
    expect(await new Response(again as Blob).arrayBuffer()).toEqual(new Uint8Array(100).fill(97).buffer);
    expect(cache.size).toBe(100);
  });

  test('big files are streamed from disk, never held; the least recently used go first past the byte cap', async () => {
    const cache = new BodyCache(1000, 600);
    const big = cache.get('big', 700, () => file('big', 700));
    expect(big).not.toBeInstanceOf(Promise);
    expect((big as Blob).size).toBe(700);
    expect(cache.size).toBe(0);

    const paths = { x: file('x', 400), y: file('y', 400), z: file('z', 400) };
    await cache.get('x', 400, () => paths.x);
    await cache.get('y', 400, () => paths.y);
    cache.get('x', 400, () => paths.x); // x is now the most recent
    await cache.get('z', 400, () => paths.z);
    expect(cache.size).toBe(800);
    let reread = false;
    await cache.get('y', 400, () => ((reread = true), paths.y));
    expect(reread).toBe(true);
    expect(cache.get('z', 400, () => paths.z)).not.toBeInstanceOf(Promise);
  });
});

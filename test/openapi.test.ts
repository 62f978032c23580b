// passes: embedded — the API description, the same on every storage
// GET /openapi.json (issue 20 item 5): every route the app mounts is
// described, nothing described is missing from the app, request schemas are
// the ones the routes validate with, and refusals carry the catalog's codes.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { Validator } from '@seriousme/openapi-schema-validator';
import { CreateCanvasBody } from '../src/canvases/model.ts';
import { ERROR_STATUS } from '../src/errors.ts';
import { openApiPath, routeKey } from '../src/openapi/document.ts';
import { body, startTestApp, type TestApp } from './harness.ts';

let app: TestApp;
let doc: any;
beforeAll(async () => {
  app = await startTestApp();
  const res = await app.request('/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  doc = await body(res);
});
afterAll(() => app.close());

describe('GET /openapi.json', () => {
  test('is OpenAPI 3.1 for this instance, readable without signing in', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Easel', version: app.ctx.version });
    expect(doc.servers[0].url).toBe(app.ctx.config.apiBaseUrl);
  });

  test("passes the OpenAPI 3.1 schema (a maintained validator's check, not ours)", async () => {
    const result = await new Validator().validate(doc);
    expect({ valid: result.valid, errors: result.errors }).toEqual({ valid: true, errors: undefined });
    // The check can fail: a path item with an unknown field is refused.
    const broken = structuredClone(doc);
    broken.paths['/healthz'].get.responses = 'none';
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  test('every mounted route and dispatcher is described, and every description is of a mounted route', () => {
    const listed = app.easel.listing().filter((r) => !r.path.startsWith('{'));
    const keys = listed.map((r) => routeKey(r.method, r.path));
    // Every route and dispatcher declares itself (src/http/declared-route.ts); there is no other list to keep.
    const undescribed = keys.filter((_, i) => !listed[i]!.declaration);
    expect(undescribed).toEqual([]);
    // What only another sign-in mode mounts is described where it is mounted (oidc.test.ts checks /auth/callback there).
    expect(doc.paths['/auth/callback']).toBeUndefined();
    for (const r of listed) {
      const methods = r.method === 'ALL' ? ['get', 'post', 'put', 'patch', 'delete'] : [r.method.toLowerCase()];
      for (const m of methods)
        expect({ route: routeKey(r.method, r.path), op: Boolean(doc.paths[openApiPath(r.path)]?.[m]) }).toEqual({
          route: routeKey(r.method, r.path),
          op: true,
        });
    }
    const documented = Object.values(doc.paths).reduce((n: number, ops: any) => n + Object.keys(ops).length, 0);
    expect(documented).toBeGreaterThanOrEqual(listed.length);
  });

  test('path parameters are declared, operation ids are unique, references resolve', () => {
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      const inPath = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const [method, op] of Object.entries<any>(ops)) {
        const declared = op.parameters
          .filter((p: any) => p.in === 'path')
          .map((p: any) => p.name)
          .sort();
        expect({ path, method, declared }).toEqual({ path, method, declared: inPath });
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
        expect(Object.keys(op.responses).length).toBeGreaterThan(1);
      }
    }
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/(\w+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) expect(doc.components.schemas[ref]).toBeDefined();
  });

  test("request bodies are the routes' own schemas: what the API accepts validates, what it refuses does not", async () => {
    const schema = doc.paths['/api/canvases'].post.requestBody.content['application/json'].schema;
    expect(schema).toEqual(JSON.parse(JSON.stringify(CreateCanvasBody)));
    expect(Value.Check(CreateCanvasBody, { title: 'Hello' })).toBe(true);
    const cookie = await app.signIn('openapi@example.com');
    expect((await app.request('/api/canvases', { method: 'POST', cookie, json: { title: 'Hello' } })).status).toBe(201);
    expect(Value.Check(CreateCanvasBody, { title: 7 })).toBe(false);
    expect((await app.request('/api/canvases', { method: 'POST', cookie, json: { title: 7 } })).status).toBe(400);
  });

  test('a body is required unless the route does without one', async () => {
    // readJson refuses an empty body unless the route gives emptyAs: what the document says is what the route does.
    const cookie = await app.signIn('openapi-bodies@example.com');
    const created = await app.request('/api/canvases', { method: 'POST', cookie, json: { title: 'Bodies' } });
    const canvas = (await created.json()) as { id: string };
    const empty = await app.request(`/api/canvases/${canvas.id}`, {
      method: 'PATCH',
      cookie,
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    expect(doc.paths['/api/canvases'].post.requestBody.required).toBe(true);
    expect(doc.paths['/api/canvases/{id}'].patch.requestBody.required).toBe(true);
    expect(doc.paths['/api/canvases/{id}/draft/publish'].post.requestBody.required).toBe(false);
    // Bodies described in words: an increment without a body counts one; a proxied GET sends none.
    expect(doc.paths['/v1/c/{slug}/kv/{key}/increment'].post.requestBody.required).toBe(false);
    expect(doc.paths['/v1/c/{slug}/connections/{profile}'].get.requestBody.required).toBe(false);
    expect(doc.paths['/v1/canvases/{id}/deploy'].put.requestBody.required).toBe(true);
  });

  test('refusals are grouped by status with the catalog codes and the right body shape', () => {
    const deploy = doc.paths['/v1/canvases/{id}/deploy'].put;
    expect(deploy.responses['200'].content['application/json'].schema.properties.outcome).toBeDefined();
    expect(deploy.responses['401'].content['application/json'].schema.properties.error.enum).toEqual(['unauthorized']);
    expect(deploy.responses['409'].description.split(', ').sort()).toEqual([
      'PUBLICATION_CHANGED',
      'QUOTA_EXCEEDED',
      'RELEASE_NOT_CURRENT',
    ]);
    expect(deploy.responses['507'].content['application/json'].schema.properties.code.enum).toEqual(['INSUFFICIENT_STORAGE']);
    const kvPut = doc.paths['/v1/c/{slug}/kv/{key}'].put;
    expect(kvPut.responses['413'].description.split(', ').sort()).toEqual(['BODY_TOO_LARGE', 'KEY_TOO_LARGE', 'VALUE_TOO_LARGE']);
    // No session at all is the gateway's {error: "unauthorized"}; a session the pipeline refuses is UNAUTHENTICATED.
    expect(kvPut.responses['401'].description).toBe('unauthorized, UNAUTHENTICATED');
    // Every status in the document is the catalog's status for each code it lists.
    for (const ops of Object.values<any>(doc.paths))
      for (const op of Object.values<any>(ops))
        for (const [status, answer] of Object.entries<any>(op.responses)) {
          if (Number(status) < 400 || !answer.content['application/json']) continue;
          // An HTML refusal page, when a status has one too, is described after the codes.
          for (const code of answer.description.split('; ')[0].split(', ')) {
            const expected = code === 'unauthorized' && status === '403' ? 403 : ERROR_STATUS[code as keyof typeof ERROR_STATUS];
            expect({ code, status: Number(status) }).toEqual({ code, status: expected });
          }
        }
  });

  test('every operation has a success and a refusal, but for the exceptions .redocly.lint-ignore.yaml lists (each explained there)', async () => {
    const ignored: any = Bun.YAML.parse(await Bun.file(join(import.meta.dir, '..', '.redocly.lint-ignore.yaml')).text());
    const lacking = (prefix: string) =>
      Object.entries<any>(doc.paths)
        .flatMap(([path, ops]) =>
          Object.entries<any>(ops)
            .filter(([, op]) => !Object.keys(op.responses).some((s) => s.startsWith(prefix)))
            .map(([method]) => `#/paths/${path.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}/responses`),
        )
        .sort();
    expect(lacking('2')).toEqual(ignored['openapi.json']['operation-2xx-response'].sort());
    expect(lacking('4')).toEqual(ignored['openapi.json']['operation-4xx-response'].sort());
  });

  test('every tag is described; the token routes name their refusal of a token (403 SESSION_REQUIRED)', () => {
    expect(doc.tags.length).toBeGreaterThan(0);
    for (const tag of doc.tags)
      expect({ tag: tag.name, described: (tag.description ?? '').length > 0 }).toEqual({ tag: tag.name, described: true });
    const used = new Set(Object.values<any>(doc.paths).flatMap((ops) => Object.values<any>(ops).flatMap((op) => op.tags)));
    expect([...used].sort()).toEqual(doc.tags.map((t: any) => t.name).sort());
    expect(doc.paths['/api/tokens'].post.responses['201']).toBeDefined();
    for (const op of [doc.paths['/api/tokens'].post, doc.paths['/api/tokens/{id}'].delete])
      expect(op.responses['403'].content['application/json'].schema.properties.code.enum).toContain('SESSION_REQUIRED');
  });
});

import { Elysia } from 'elysia';
import { AppError, overCap } from '../../errors.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { readJson } from '../../http/json-body.ts';
import { privateAnswer } from '../private-answers.ts';
import { runtimeJson, runtimeRaw } from '../runtime-request.ts';
import { COLLECTION_LIMITS, IncrementBody, recordJson, ValueBody } from './model.ts';
import type { CollectionService } from './service.ts';

/**
 * The largest body read for a value. The 64 KiB cap is on the serialized
 * value (a pretty-printed body can be larger than its value), so a body up to
 * this ceiling is read and parsed; past it the answer is 413 VALUE_TOO_LARGE
 * without reading further.
 */
const MAX_VALUE_BODY = 1024 * 1024;

const valueTooLarge = () => overCap('VALUE_TOO_LARGE', `values are at most ${COLLECTION_LIMITS.valueBytes} bytes once serialized`);

/** The body as a JSON value of any kind, null included; an empty body is 400. */
async function readValue(request: Request): Promise<unknown> {
  const value = await readJson(request, ValueBody, { maxBytes: MAX_VALUE_BODY, tooLarge: valueTooLarge });
  if (value === undefined) throw new AppError('INVALID_BODY', 'body: a JSON value is required (null included)');
  return value;
}

const searchOf = (request: Request) => new URL(request.url).searchParams;

/**
 * /v1/c/{slug}/collections/{name}…: the kv capability, then the collection's
 * live policy (400 name, 404 COLLECTION_NOT_CONFIGURED), then the caller's
 * right (403), then the record (404), then the body.
 */
export function collectionRoutes(auth: AuthKinds, collections: CollectionService) {
  const base = '/v1/c/:slug/collections/:name';
  return new Elysia({ name: 'runtime-collections' })
    .use(auth)
    .guard({ runtime: { capability: 'kv', insight: 'collections' }, parse: 'none' }, (app) =>
      app
        .post(base, async ({ caller, params, request }) => {
          privateAnswer(request);
          const c = collections.open(caller, params.name);
          collections.require(c, 'create');
          return runtimeRaw(201, recordJson(await collections.create(c, await readValue(request))));
        })
        .get(base, async ({ caller, params, request }) => {
          privateAnswer(request);
          const q = searchOf(request);
          return runtimeRaw(
            200,
            await collections.listJson(collections.open(caller, params.name), { limit: q.get('limit'), cursor: q.get('cursor') }),
          );
        })
        .delete(base, async ({ caller, params, request }) => {
          privateAnswer(request);
          return runtimeJson(200, await collections.clear(collections.open(caller, params.name)));
        })
        .get(`${base}/permissions`, ({ caller, params, request }) => {
          privateAnswer(request);
          return runtimeJson(200, collections.open(caller, params.name).rights);
        })
        .get(`${base}/count`, async ({ caller, params, request }) => {
          privateAnswer(request);
          return runtimeJson(200, { count: await collections.count(collections.open(caller, params.name)) });
        })
        .get(`${base}/:id`, async ({ caller, params, request }) => {
          privateAnswer(request);
          return runtimeRaw(200, recordJson(await collections.get(collections.open(caller, params.name), params.id)));
        })
        .put(`${base}/:id`, async ({ caller, params, request }) => {
          privateAnswer(request);
          const c = collections.open(caller, params.name);
          await collections.target(c, params.id, 'update');
          return runtimeRaw(200, recordJson(await collections.replace(c, params.id, await readValue(request))));
        })
        .delete(`${base}/:id`, async ({ caller, params, request }) => {
          privateAnswer(request);
          return runtimeJson(200, await collections.delete(collections.open(caller, params.name), params.id));
        })
        .post(`${base}/:id/increment`, async ({ caller, params, request }) => {
          privateAnswer(request);
          const c = collections.open(caller, params.name);
          await collections.target(c, params.id, 'increment');
          const { by } = await readJson(request, IncrementBody, { emptyAs: {} });
          return runtimeRaw(200, recordJson(await collections.increment(c, params.id, by)));
        }),
    );
}

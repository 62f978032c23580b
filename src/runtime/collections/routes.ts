import { AppError, overCap } from '../../errors.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { runtimeRoute } from '../door-routes.ts';
import type { PipelineOptions } from '../pipeline.ts';
import { privateAnswer } from '../private-answers.ts';
import { runtimeRaw } from '../runtime-request.ts';
import {
  CollectionCleared,
  CollectionCount,
  CollectionListQuery,
  CollectionPage,
  CollectionPermissions,
  CollectionRecord,
  COLLECTION_LIMITS,
  IncrementBody,
  RecordRemoved,
  recordJson,
  ValueBody,
} from './model.ts';
import type { CollectionService } from './service.ts';

/**
 * The largest body read for a value. The 64 KiB cap is on the serialized
 * value (a pretty-printed body can be larger than its value), so a body up to
 * this ceiling is read and parsed; past it the answer is 413 VALUE_TOO_LARGE
 * without reading further.
 */
const MAX_VALUE_BODY = 1024 * 1024;

const valueTooLarge = () => overCap('VALUE_TOO_LARGE', `values are at most ${COLLECTION_LIMITS.valueBytes} bytes once serialized`);

/** A value body: a JSON value of any kind, null included; an empty body is 400 (see `present`). */
const VALUE = { body: ValueBody, bodyOptions: { maxBytes: MAX_VALUE_BODY, tooLarge: valueTooLarge } };

function present(value: unknown): unknown {
  if (value === undefined) throw new AppError('INVALID_BODY', 'body: a JSON value is required (null included)');
  return value;
}

/** Collections run as the kv capability and count as collections in the canvas's insights. */
const DOOR: PipelineOptions = { capability: 'kv', insight: 'collections' };

/** Every route can refuse a malformed name (400) and a collection the policy does not configure (404). */
const NAMED = ['INVALID_BODY', 'COLLECTION_NOT_CONFIGURED'] as const;
/** A write's body: malformed, or too large once serialized. */
const WRITE = [...NAMED, 'BODY_TOO_LARGE', 'VALUE_TOO_LARGE', 'PERMISSION_DENIED'] as const;

/**
 * /v1/c/{slug}/collections/{name}…: the kv capability, then the collection's
 * live policy (400 name, 404 COLLECTION_NOT_CONFIGURED), then the caller's
 * right (403), then the record (404), then the body. Every answer, refusals
 * included, is private (privateAnswer, first). Records are stored as JSON
 * text and answered as is (runtimeRaw); the declared answers describe them.
 */
export function collectionRoutes(auth: AuthKinds, collections: CollectionService) {
  const base = '/v1/c/:slug/collections/:name';
  const route = { doorOption: DOOR };
  return declaredRoutes('runtime-collections', auth, [
    runtimeRoute(
      {
        method: 'POST',
        path: base,
        ...route,
        summary: 'Create a record',
        ...VALUE,
        answer: CollectionRecord,
        status: 201,
        errors: [...WRITE, 'KEY_LIMIT', 'QUOTA_EXCEEDED'],
      },
      {
        check: ({ caller, params, request }) => {
          privateAnswer(request);
          collections.require(collections.open(caller, params.name), 'create');
        },
        handle: async ({ caller, params, body }) =>
          runtimeRaw(201, recordJson(await collections.create(collections.open(caller, params.name), present(body)))),
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: base,
        ...route,
        summary: 'List records the viewer may read',
        query: CollectionListQuery,
        answer: CollectionPage,
        errors: [...NAMED, 'PERMISSION_DENIED'],
      },
      async ({ caller, params, query, request }) => {
        privateAnswer(request);
        return runtimeRaw(200, await collections.listJson(collections.open(caller, params.name), query));
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: base,
        ...route,
        summary: 'Delete every record (per the policy)',
        answer: CollectionCleared,
        errors: [...NAMED, 'PERMISSION_DENIED'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        return collections.clear(collections.open(caller, params.name));
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: `${base}/permissions`,
        ...route,
        summary: "The viewer's rights on the collection",
        answer: CollectionPermissions,
        errors: [...NAMED],
      },
      ({ caller, params, request }) => {
        privateAnswer(request);
        return collections.open(caller, params.name).rights;
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: `${base}/count`,
        ...route,
        summary: 'How many records (aggregateCount)',
        answer: CollectionCount,
        errors: [...NAMED, 'PERMISSION_DENIED'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        return { count: await collections.count(collections.open(caller, params.name)) };
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: `${base}/:id`,
        ...route,
        summary: 'Read a record',
        answer: CollectionRecord,
        errors: [...NAMED, 'PERMISSION_DENIED', 'NOT_FOUND'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        return runtimeRaw(200, recordJson(await collections.get(collections.open(caller, params.name), params.id)));
      },
    ),
    runtimeRoute(
      {
        method: 'PUT',
        path: `${base}/:id`,
        ...route,
        summary: 'Replace a record',
        ...VALUE,
        answer: CollectionRecord,
        errors: [...WRITE, 'NOT_FOUND'],
      },
      {
        check: async ({ caller, params, request }) => {
          privateAnswer(request);
          await collections.target(collections.open(caller, params.name), params.id, 'update');
        },
        handle: async ({ caller, params, body }) =>
          runtimeRaw(200, recordJson(await collections.replace(collections.open(caller, params.name), params.id, present(body)))),
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: `${base}/:id`,
        ...route,
        summary: 'Delete a record',
        answer: RecordRemoved,
        errors: [...NAMED, 'PERMISSION_DENIED', 'NOT_FOUND'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        return collections.delete(collections.open(caller, params.name), params.id);
      },
    ),
    runtimeRoute(
      {
        method: 'POST',
        path: `${base}/:id/increment`,
        ...route,
        summary: 'Add to a number field of a record',
        body: IncrementBody,
        bodyOptions: { emptyAs: {} },
        answer: CollectionRecord,
        errors: [...NAMED, 'BODY_TOO_LARGE', 'PERMISSION_DENIED', 'NOT_NUMERIC', 'NOT_FOUND'],
      },
      {
        check: async ({ caller, params, request }) => {
          privateAnswer(request);
          await collections.target(collections.open(caller, params.name), params.id, 'increment');
        },
        handle: async ({ caller, params, body }) =>
          runtimeRaw(200, recordJson(await collections.increment(collections.open(caller, params.name), params.id, body.by))),
      },
    ),
  ]);
}

import { AppError, overCap } from '../../errors.ts';
import { declaredRoutes } from '../../http/declared-route.ts';
import { Ok } from '../../openapi/schemas.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { runtimeRoute } from '../door-routes.ts';
import type { PipelineOptions } from '../pipeline.ts';
import { privateAnswer } from '../private-answers.ts';
import { runtimeRaw } from '../runtime-request.ts';
import { SUBMISSION_LIMITS, SubmissionListQuery, SubmissionPage, SubmissionRecord, submissionJson, ValueBody } from './model.ts';
import type { SubmissionService } from './service.ts';

const OK = { ok: true } as const;

/** Submissions run as the kv capability and count as submissions in the canvas's insights. */
const DOOR: PipelineOptions = { capability: 'kv', insight: 'submissions' };

/** Every route can refuse a malformed collection name (400). */
const NAMED = ['INVALID_BODY'] as const;

/**
 * /v1/c/{slug}/submissions/{collection}…: the kv capability, then the
 * collection name (400), the caller's role (403), then the body or query.
 * Every answer, refusals included, is private (privateAnswer, first).
 * Submissions are stored as JSON text and answered as is (runtimeRaw); the
 * declared answers describe them.
 */
export function submissionRoutes(auth: AuthKinds, submissions: SubmissionService) {
  const base = '/v1/c/:slug/submissions/:collection';
  const route = { doorOption: DOOR };
  return declaredRoutes('runtime-submissions', auth, [
    runtimeRoute(
      {
        method: 'PUT',
        path: `${base}/mine`,
        ...route,
        summary: "Submit (or replace) the viewer's entry",
        // A JSON value of any kind, null included, at most 64 KiB as sent.
        body: ValueBody,
        bodyOptions: {
          maxBytes: SUBMISSION_LIMITS.bodyBytes,
          tooLarge: (max) => overCap('VALUE_TOO_LARGE', `submissions are at most ${max} bytes`),
        },
        answer: SubmissionRecord,
        errors: [...NAMED, 'BODY_TOO_LARGE', 'PERMISSION_DENIED', 'VALUE_TOO_LARGE', 'KEY_LIMIT', 'QUOTA_EXCEEDED'],
      },
      {
        check: ({ caller, params, request }) => {
          privateAnswer(request);
          submissions.space(caller, params.collection);
        },
        handle: async ({ caller, params, body }) => {
          if (body === undefined) throw new AppError('INVALID_BODY', 'body: a JSON value is required (null included)');
          return runtimeRaw(200, submissionJson(await submissions.submit(caller, submissions.space(caller, params.collection), body)));
        },
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: `${base}/mine`,
        ...route,
        summary: "The viewer's entry",
        answer: SubmissionRecord,
        errors: [...NAMED, 'NOT_FOUND'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        return runtimeRaw(200, submissionJson(await submissions.mine(caller, submissions.space(caller, params.collection))));
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: `${base}/mine`,
        ...route,
        summary: "Withdraw the viewer's entry",
        answer: Ok,
        errors: [...NAMED],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        await submissions.withdraw(caller, submissions.space(caller, params.collection));
        return OK;
      },
    ),
    runtimeRoute(
      {
        method: 'GET',
        path: base,
        ...route,
        summary: 'Every entry (editors)',
        query: SubmissionListQuery,
        answer: SubmissionPage,
        errors: [...NAMED, 'PERMISSION_DENIED'],
      },
      async ({ caller, params, query, request }) => {
        privateAnswer(request);
        const page = await submissions.list(caller, submissions.space(caller, params.collection), query);
        return runtimeRaw(
          200,
          `{"entries":[${page.entries.map(submissionJson).join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`,
        );
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: `${base}/:userId`,
        ...route,
        summary: "Remove someone's entry (editors)",
        answer: Ok,
        errors: [...NAMED, 'PERMISSION_DENIED'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        await submissions.remove(caller, submissions.space(caller, params.collection), params.userId);
        return OK;
      },
    ),
    runtimeRoute(
      {
        method: 'DELETE',
        path: base,
        ...route,
        summary: 'Clear every entry (editors)',
        answer: Ok,
        errors: [...NAMED, 'PERMISSION_DENIED'],
      },
      async ({ caller, params, request }) => {
        privateAnswer(request);
        await submissions.clear(caller, submissions.space(caller, params.collection));
        return OK;
      },
    ),
  ]);
}

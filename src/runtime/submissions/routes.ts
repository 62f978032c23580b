import { Elysia } from 'elysia';
import { AppError, overCap } from '../../errors.ts';
import type { AuthKinds } from '../../server/auth-kinds.ts';
import { readJson } from '../../http/json-body.ts';
import { privateAnswer } from '../private-answers.ts';
import { runtimeJson, runtimeRaw } from '../runtime-request.ts';
import { SUBMISSION_LIMITS, submissionJson, ValueBody } from './model.ts';
import type { SubmissionService } from './service.ts';

const OK = { ok: true } as const;

/** The body as a JSON value of any kind, null included; at most 64 KiB as sent. */
async function readValue(request: Request): Promise<unknown> {
  const value = await readJson(request, ValueBody, {
    maxBytes: SUBMISSION_LIMITS.bodyBytes,
    tooLarge: (max) => overCap('VALUE_TOO_LARGE', `submissions are at most ${max} bytes`),
  });
  if (value === undefined) throw new AppError('INVALID_BODY', 'body: a JSON value is required (null included)');
  return value;
}

/**
 * /v1/c/{slug}/submissions/{collection}…: the kv capability, then the
 * collection name (400), the caller's role (403), then the body or query.
 */
export function submissionRoutes(auth: AuthKinds, submissions: SubmissionService) {
  const base = '/v1/c/:slug/submissions/:collection';
  return new Elysia({ name: 'runtime-submissions' })
    .use(auth)
    .guard({ runtime: { capability: 'kv', insight: 'submissions' }, parse: 'none' }, (app) =>
      app
        .put(`${base}/mine`, async ({ caller, params, request }) => {
          privateAnswer(request);
          const space = submissions.space(caller, params.collection);
          return runtimeRaw(200, submissionJson(await submissions.submit(caller, space, await readValue(request))));
        })
        .get(`${base}/mine`, async ({ caller, params, request }) => {
          privateAnswer(request);
          return runtimeRaw(200, submissionJson(await submissions.mine(caller, submissions.space(caller, params.collection))));
        })
        .delete(`${base}/mine`, async ({ caller, params, request }) => {
          privateAnswer(request);
          await submissions.withdraw(caller, submissions.space(caller, params.collection));
          return runtimeJson(200, OK);
        })
        .get(base, async ({ caller, params, request }) => {
          privateAnswer(request);
          const q = new URL(request.url).searchParams;
          const page = await submissions.list(caller, submissions.space(caller, params.collection), {
            limit: q.get('limit'),
            cursor: q.get('cursor'),
          });
          return runtimeRaw(
            200,
            `{"entries":[${page.entries.map(submissionJson).join(',')}],"nextCursor":${JSON.stringify(page.nextCursor)}}`,
          );
        })
        .delete(`${base}/:userId`, async ({ caller, params, request }) => {
          privateAnswer(request);
          await submissions.remove(caller, submissions.space(caller, params.collection), params.userId);
          return runtimeJson(200, OK);
        })
        .delete(base, async ({ caller, params, request }) => {
          privateAnswer(request);
          await submissions.clear(caller, submissions.space(caller, params.collection));
          return runtimeJson(200, OK);
        }),
    );
}

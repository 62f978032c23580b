// Submissions on the wire (spec: Submission record, Submissions rules, Limits / KV and submissions).
import { Type } from '@sinclair/typebox';
import { AppError } from '../../errors.ts';
import { strictLimit } from '../collections/model.ts';
import type { StoredSubmission } from './store.ts';

export const SUBMISSION_LIMITS = {
  /** The request body, transport included (spec: "submission bodies include transport"). */
  bodyBytes: 64 * 1024,
  /** kv.keys.shared and kv.keys.user, applied separately to the submissions scope. */
  perCanvas: 10_000,
  perAuthor: 1_000,
  listDefault: 100,
  listMax: 1_000,
} as const;

/** 1-80 ASCII letters, digits, dots, underscores or hyphens, starting with a letter or digit. */
export const SUBMISSION_COLLECTION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$/;
/** Cursors and user ids: up to 128 ASCII letters, digits, colons or hyphens. */
export const SUBMISSION_USER_ID = /^[A-Za-z0-9:-]{1,128}$/;

/** A JSON value of any kind, null included (checked for presence by the route). */
export const ValueBody = Type.Unknown();

/** A submission as the runtime API answers it (the SDK's `SubmissionRecord`, sdk/wire.ts). */
export const SubmissionRecord = Type.Object({ userId: Type.String(), value: Type.Unknown(), updatedAt: Type.Number() });

/** GET /submissions/{collection} (owners and editors), in userId byte order (the SDK's `SubmissionPage`). */
export const SubmissionPage = Type.Object({
  entries: Type.Array(SubmissionRecord),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass it back as cursor for the next page; null on the last' }),
});

/** The list query: both optional strings, checked by submissionPageQuery (malformed is 400). */
export const SubmissionListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ description: 'next page' })),
  limit: Type.Optional(
    Type.String({ description: `page size, 1-${SUBMISSION_LIMITS.listMax} (default ${SUBMISSION_LIMITS.listDefault})` }),
  ),
});

export function submissionCollection(raw: string | null | undefined): string {
  if (typeof raw !== 'string' || !SUBMISSION_COLLECTION.test(raw)) {
    throw new AppError(
      'INVALID_BODY',
      'malformed collection: 1-80 ASCII letters, digits, ".", "_" or "-", starting with a letter or digit',
    );
  }
  return raw;
}

export function submissionUserId(raw: string | null | undefined): string {
  if (typeof raw !== 'string' || !SUBMISSION_USER_ID.test(raw)) {
    throw new AppError('INVALID_BODY', 'malformed user id: up to 128 ASCII letters, digits, ":" or "-"');
  }
  return raw;
}

/** `limit` an integer 1-1000 (default 100); `cursor` a returned nextCursor (absent or empty: from the start). */
export function submissionPageQuery(query: { limit?: string | null; cursor?: string | null }): { limit: number; cursor: string } {
  const cursor = query.cursor ?? '';
  if (cursor !== '' && !SUBMISSION_USER_ID.test(cursor)) {
    throw new AppError('INVALID_BODY', 'malformed cursor: pass a returned nextCursor unchanged');
  }
  return { limit: strictLimit(query.limit, SUBMISSION_LIMITS.listDefault, SUBMISSION_LIMITS.listMax), cursor };
}

/** A stored submission as JSON text (the value is stored as JSON text and sent as is). */
export function submissionJson(s: StoredSubmission): string {
  return `{"userId":${JSON.stringify(s.userId)},"value":${s.value},"updatedAt":${s.updatedAt}}`;
}

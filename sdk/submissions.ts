// easel.submissions(collection): one record per person (a vote, an RSVP, a
// form). Everyone admitted submits and withdraws their own; owners and
// editors list, remove and clear.
import type { Transport } from './request.ts';
import type { SubmissionPage, SubmissionRecord } from './wire.ts';
export type { SubmissionPage, SubmissionRecord } from './wire.ts';

export interface Submissions {
  /** Creates or replaces the caller's submission. */
  submit(value: unknown): Promise<SubmissionRecord>;
  /** Rejects with NOT_FOUND when the caller has none. */
  mine(): Promise<SubmissionRecord>;
  /** Idempotent. */
  withdraw(): Promise<{ ok: true }>;
  /** Owners and editors: everyone's, in userId order. */
  list(options?: { cursor?: string | null; limit?: number }): Promise<SubmissionPage>;
  /** Owners and editors (and a viewer for their own id). */
  remove(userId: string): Promise<{ ok: true }>;
  /** Owners and editors: every submission in the collection. */
  clear(): Promise<{ ok: true }>;
}

export function createSubmissions(t: Transport, collection: string): Submissions {
  const base = `/submissions/${encodeURIComponent(collection)}`;
  return Object.freeze({
    submit: (value: unknown) => t.request<SubmissionRecord>('PUT', `${base}/mine`, { json: value === undefined ? null : value }),
    mine: () => t.request<SubmissionRecord>('GET', `${base}/mine`),
    withdraw: () => t.request<{ ok: true }>('DELETE', `${base}/mine`),
    list: (options: { cursor?: string | null; limit?: number } = {}) =>
      t.request<SubmissionPage>('GET', base, { query: { cursor: options.cursor, limit: options.limit } }),
    remove: (userId: string) => t.request<{ ok: true }>('DELETE', `${base}/${encodeURIComponent(userId)}`),
    clear: () => t.request<{ ok: true }>('DELETE', base),
  });
}

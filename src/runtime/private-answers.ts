// Collections and submissions answer `Cache-Control: private, no-store`
// whatever the outcome: a 404 for an unreadable record says as much about a
// person's data as a 200 does.
import { metaOf } from '../http/meta.ts';

const NO_STORE = { 'cache-control': 'private, no-store' };

/** Marks whatever this request ends with (success or refusal) as never cached. Call it first in the handler. */
export function privateAnswer(request: Request): void {
  const meta = metaOf(request);
  meta.headers = { ...meta.headers, ...NO_STORE };
}

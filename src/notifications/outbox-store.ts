// The notification outbox's rows (migration 025). Enqueueing is one insert a
// request makes in its own transaction (or inside the transaction of the
// change it reports); everything after is the worker's (./outbox-worker.ts).
import { tx, type Sql, type TxSteps } from '../db/sql.ts';
import { newId } from '../ids.ts';
import { LeasedQueue } from '../db/leased-queue.ts';

export interface OutgoingMail {
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
  /** Set for a message sent at most once per key (the key is recorded with it). */
  dedupeKey?: string;
  /** Its one-click unsubscribe link (List-Unsubscribe); none for a message that is no subscription. */
  unsubscribeUrl?: string;
}

export interface OutboxRow extends OutgoingMail {
  id: string;
  createdAt: number;
  attempts: number;
}

export type DeliveryState = 'pending' | 'sent' | 'failed';

/** What an admin sees of a message (never its body: it may quote people's data). */
export interface DeliveryView {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  state: DeliveryState;
  attempts: number;
  createdAt: string;
  finishedAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
}

interface Row {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  text_body: string;
  html_body: string;
  created_at: number;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  finished_at: number | null;
  unsubscribe_url: string | null;
}

/** The insert, for a transaction body: `yield* enqueueMail(mail, now)`; false when its dedupe key was recorded before. */
export function* enqueueMail(mail: OutgoingMail, now: number): TxSteps<boolean> {
  const id = newId();
  const inserted = yield* tx.run(
    `INSERT INTO notification_outbox (id, kind, recipient, subject, text_body, html_body, created_at, next_attempt_at, dedupe_key, unsubscribe_url)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9) ON CONFLICT (dedupe_key) DO NOTHING`,
    id,
    mail.kind,
    mail.recipient,
    mail.subject,
    mail.text,
    mail.html,
    now,
    mail.dedupeKey ?? null,
    mail.unsubscribeUrl ?? null,
  );
  return inserted === 1;
}

/**
 * Kinds whose body carries a secret (a guest link: the database keeps only
 * its hash elsewhere): the body is blanked once the message is sent or given
 * up on, so the row kept for the admin view holds no working link.
 */
const SECRET_KINDS = "'guest_invite'";
const FORGET_SECRETS = `text_body = CASE WHEN kind IN (${SECRET_KINDS}) THEN '' ELSE text_body END,
  html_body = CASE WHEN kind IN (${SECRET_KINDS}) THEN '' ELSE html_body END`;

export class OutboxStore {
  private readonly queue: LeasedQueue;

  constructor(private readonly sql: Sql) {
    this.queue = new LeasedQueue(sql, 'notification_outbox');
  }

  enqueue(mail: OutgoingMail, now: number): Promise<boolean> {
    return this.sql.write(() => enqueueMail(mail, now));
  }

  /** Ids of messages due now whose lease (if any) ran out, oldest first. */
  due(now: number, limit: number): Promise<string[]> {
    return this.queue.due(now, limit);
  }

  /**
   * Takes the sending lease for `node` unless another node holds an unexpired
   * one: of several nodes that saw the row due, one wins and sends it.
   */
  async claim(id: string, now: number, until: number, node: string): Promise<OutboxRow | null> {
    if (!(await this.queue.claim(id, now, until, node))) return null;
    const r = await this.sql.get<Row>('SELECT * FROM notification_outbox WHERE id = ?1', id);
    return r
      ? {
          id: r.id,
          kind: r.kind,
          recipient: r.recipient,
          subject: r.subject,
          text: r.text_body,
          html: r.html_body,
          ...(r.unsubscribe_url === null ? {} : { unsubscribeUrl: r.unsubscribe_url }),
          createdAt: r.created_at,
          attempts: r.attempts,
        }
      : null;
  }

  markSent(id: string, node: string, now: number): Promise<number> {
    return this.sql.run(
      `UPDATE notification_outbox SET state = 'sent', attempts = attempts + 1, finished_at = ?1, lease_until = 0, last_error = NULL, ${FORGET_SECRETS}
       WHERE id = ?2 AND lease_node = ?3`,
      now,
      id,
      node,
    );
  }

  /** A failed attempt: tried again at `retryAt`, or (null) given up on. */
  markAttemptFailed(id: string, node: string, now: number, error: string, retryAt: number | null): Promise<number> {
    return this.sql.run(
      `UPDATE notification_outbox SET attempts = attempts + 1, last_error = ?1, lease_until = 0,
         state = CASE WHEN ?2 < 0 THEN 'failed' ELSE 'pending' END,
         next_attempt_at = CASE WHEN ?2 < 0 THEN next_attempt_at ELSE ?2 END,
         finished_at = CASE WHEN ?2 < 0 THEN ?3 ELSE NULL END,
         text_body = CASE WHEN ?2 < 0 AND kind IN (${SECRET_KINDS}) THEN '' ELSE text_body END,
         html_body = CASE WHEN ?2 < 0 AND kind IN (${SECRET_KINDS}) THEN '' ELSE html_body END
       WHERE id = ?4 AND lease_node = ?5`,
      error.slice(0, 500),
      retryAt ?? -1,
      now,
      id,
      node,
    );
  }

  /** Frees every sending lease left by a dead run (see LeasedQueue.releaseAll). */
  releaseAllLeases(): Promise<number> {
    return this.queue.releaseAll();
  }

  async recent(limit: number, state: DeliveryState | null): Promise<DeliveryView[]> {
    // Two texts rather than `?1 IS NULL OR …`: Postgres cannot type a parameter that is only ever compared with NULL.
    const rows = state
      ? await this.sql.all<Row>('SELECT * FROM notification_outbox WHERE state = ?1 ORDER BY created_at DESC, id LIMIT ?2', state, limit)
      : await this.sql.all<Row>('SELECT * FROM notification_outbox ORDER BY created_at DESC, id LIMIT ?1', limit);
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      recipient: r.recipient,
      subject: r.subject,
      state: r.state,
      attempts: r.attempts,
      createdAt: iso(r.created_at)!,
      finishedAt: iso(r.finished_at),
      nextAttemptAt: r.state === 'pending' ? iso(r.next_attempt_at) : null,
      lastError: r.last_error,
    }));
  }

  /** Rows whose outcome is settled and older than `before` (kept for the admin view meanwhile). */
  prune(before: number): Promise<number> {
    return this.sql.run("DELETE FROM notification_outbox WHERE state <> 'pending' AND finished_at < ?1", before);
  }
}

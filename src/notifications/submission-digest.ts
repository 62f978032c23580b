// The hourly digest of new submissions, for owners who set a canvas to
// `hourly`: each new submission adds one to its canvas and collection's count
// (migration 028); a minute past every hour, every node scans for canvases
// with counts from before the hour and, one canvas at a time under a lock,
// deletes the counts and records one message in the outbox in the same
// transaction. Whichever node comes first mails; the others find nothing. A
// restart keeps the counts (nothing lost) and a digest already recorded
// deleted them (nothing repeated); the outbox does the sending.
import type { Cancel } from '../clock.ts';
import type { Core } from '../foundation.ts';
import { tx } from '../db/sql.ts';
import type { EventMap } from '../events.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { compose } from './compose.ts';
import { unsubscribeUrl } from './unsubscribe.ts';
import { enqueueMail, type OutgoingMail } from './outbox-store.ts';
import type { PreferenceStore } from './preferences.ts';
import type { Canvas } from '../canvases/record.ts';
import type { User } from '../auth/users.ts';

const HOUR_MS = 3600_000;
/** Scans run this long after each full hour (UTC): every node at the same time, so a canvas gets at most one digest an hour. */
const PAST_THE_HOUR_MS = 60_000;
/** Canvases digested per scan; the rest wait for the next one. */
const SCAN_LIMIT = 1000;

const LOCK = 'submission-digest';

interface CountRow {
  collection: string;
  n: number;
  since: number;
}

/** Milliseconds from `now` to the next scan time (a minute past an hour). */
export function untilNextScan(now: number): number {
  const next = Math.floor((now - PAST_THE_HOUR_MS) / HOUR_MS) * HOUR_MS + HOUR_MS + PAST_THE_HOUR_MS;
  return next - now;
}

export class SubmissionDigest implements Lifecycle {
  private cancel: Cancel | null = null;

  constructor(
    private readonly ctx: Pick<Core, 'canvases' | 'config' | 'events' | 'instanceSecret' | 'log' | 'now' | 'scheduler' | 'sql' | 'users'>,
    private readonly prefs: PreferenceStore,
    /** The outbox has a new message: send soon. */
    private readonly recorded: () => void,
  ) {}

  start(): void {
    this.stop();
    const first = this.ctx.scheduler.timeout(untilNextScan(this.ctx.now()), () => {
      this.cancel = this.ctx.scheduler.interval(HOUR_MS, () => void this.scan());
      void this.scan();
    });
    this.cancel = first;
  }

  stop(): void {
    this.cancel?.();
    this.cancel = null;
  }

  /** Counts a new submission when its canvas's owner wants hourly digests of it (true: counted). */
  async count(e: EventMap['submission.created']): Promise<boolean> {
    const canvas = await this.ctx.canvases.byId(e.canvasId);
    if (!canvas || (await this.prefs.submissionMode(canvas.ownerId, canvas.id)) !== 'hourly') return false;
    const now = this.ctx.now();
    await this.ctx.sql.write(function* () {
      // The same lock as the digest: a count is in the digest that deletes it, or in the next one.
      yield* tx.lock(LOCK, canvas.id);
      yield* tx.run(
        `INSERT INTO submission_digest_counts (canvas_id, collection, n, since) VALUES (?1, ?2, 1, ?3)
         ON CONFLICT (canvas_id, collection) DO UPDATE SET n = submission_digest_counts.n + 1`,
        canvas.id,
        e.collection,
        now,
      );
    });
    return true;
  }

  /** One pass: a digest for each canvas with counts from before this hour; resolves with how many were recorded. */
  async scan(): Promise<number> {
    const hourStart = Math.floor(this.ctx.now() / HOUR_MS) * HOUR_MS;
    let recorded = 0;
    try {
      const due = await this.ctx.sql.all<{ canvas_id: string }>(
        'SELECT DISTINCT canvas_id FROM submission_digest_counts WHERE since < ?1 ORDER BY canvas_id LIMIT ?2',
        hourStart,
        SCAN_LIMIT,
      );
      for (const { canvas_id } of due) if (await this.digest(canvas_id, hourStart)) recorded++;
    } catch (err) {
      this.ctx.log.warn('the submission digest scan failed', { error: err instanceof Error ? err.message : String(err) });
    }
    if (recorded > 0) this.recorded();
    this.ctx.events.emit('notifications.digest-scan', { recorded });
    return recorded;
  }

  /** Takes the canvas's counts and records their message (none when the owner no longer wants it: the counts go anyway). */
  private async digest(canvasId: string, hourStart: number): Promise<boolean> {
    const canvas = await this.ctx.canvases.byId(canvasId);
    const owner = canvas ? await this.ctx.users.byId(canvas.ownerId) : null;
    const wanted =
      canvas && owner?.active && (await this.prefs.submissionMode(owner.id, canvas.id)) === 'hourly' ? { canvas, owner } : null;
    const now = this.ctx.now();
    const mailFor = (rows: CountRow[]) => (wanted ? digestMail(this.ctx, wanted.canvas, wanted.owner, rows, hourStart) : null);
    return this.ctx.sql.write(function* () {
      yield* tx.lock(LOCK, canvasId);
      const rows = yield* tx.all<CountRow>(
        'SELECT collection, n, since FROM submission_digest_counts WHERE canvas_id = ?1 ORDER BY collection',
        canvasId,
      );
      // Another node took them first (or they all came this hour: next hour's digest).
      if (!rows.some((r) => r.since < hourStart)) return false;
      yield* tx.run('DELETE FROM submission_digest_counts WHERE canvas_id = ?1', canvasId);
      const mail = mailFor(rows);
      return mail ? yield* enqueueMail(mail, now) : false;
    });
  }
}

function digestMail(
  ctx: Pick<Core, 'config' | 'instanceSecret'>,
  canvas: Canvas,
  owner: User,
  rows: CountRow[],
  hourStart: number,
): OutgoingMail {
  const total = rows.reduce((sum, r) => sum + r.n, 0);
  const many = (n: number) => (n === 1 ? '1 new submission' : `${n} new submissions`);
  const firstAt = new Date(Math.min(...rows.map((r) => r.since))).toUTCString();
  return {
    kind: 'submissions',
    recipient: owner.email,
    // At most one digest per canvas and hour, whatever happens.
    dedupeKey: `submissions_digest:${canvas.id}:${hourStart}`,
    ...compose({
      subject: `${many(total)} on "${canvas.title}"`,
      paragraphs: [
        `Your canvas "${canvas.title}" received ${many(total)} since the last digest (the first at ${firstAt}):`,
        ...rows.map((r) => `"${r.collection}": ${r.n}`),
      ],
      link: { label: "See them in the canvas's Data section", url: `${ctx.config.baseUrl}/#/canvas/${encodeURIComponent(canvas.id)}/data` },
      footer: `You get this because you asked for an hourly digest of new submissions to this canvas. Choose which emails you get on the canvas's page in the dashboard.`,
      unsubscribe: unsubscribeUrl(ctx.config, ctx.instanceSecret, { userId: owner.id, kind: 'submissions', canvasId: canvas.id }),
    }),
  };
}

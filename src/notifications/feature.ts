// Notifications by email: the outbox, its worker, and what requests call to
// record a message. Without EASEL_SMTP_URL nothing is recorded or sent.
import type { AppContext } from '../context.ts';
import type { TxSteps } from '../db/sql.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { smtpMailer, type SmtpOptions } from './mailer.ts';
import { OutboxWorker } from './outbox-worker.ts';
import { enqueueMail, OutboxStore, type OutgoingMail } from './outbox-store.ts';

export type NotificationsOptions = SmtpOptions;

export interface NotificationsFeature extends Lifecycle {
  readonly emailEnabled: boolean;
  readonly outbox: OutboxStore;
  /** Records a message in its own transaction; the worker sends it soon after. */
  send(mail: OutgoingMail): Promise<void>;
  /** The insert for a change's own transaction (call `sent()` after it commits); nothing when email is off. */
  record(mail: OutgoingMail, now: number): TxSteps<void>;
  /** Wakes the worker after `record`ed rows committed. */
  sent(): void;
}

export function createNotificationsFeature(ctx: AppContext, options: NotificationsOptions = {}): NotificationsFeature {
  const outbox = new OutboxStore(ctx.sql);
  const smtp = ctx.config.smtp;
  const worker = smtp
    ? new OutboxWorker({
        store: outbox,
        mailer: smtpMailer(smtp, ctx.config.smtpFrom, options),
        node: ctx.nodeId,
        now: ctx.now,
        scheduler: ctx.scheduler,
        events: ctx.events,
        log: ctx.log,
        exclusive: ctx.sql.engine === 'sqlite',
      })
    : null;
  return {
    emailEnabled: worker !== null,
    outbox,
    async send(mail) {
      if (!worker) return;
      await outbox.enqueue(mail, ctx.now());
      worker.kick();
    },
    *record(mail, now) {
      if (worker) yield* enqueueMail(mail, now);
    },
    sent: () => worker?.kick(),
    start: () => worker?.start(),
    stop: () => worker?.stop(),
  };
}

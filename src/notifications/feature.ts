// Notifications by email: the outbox, its worker, and what requests call to
// record a message. Without EASEL_SMTP_URL nothing is recorded or sent.
import type { Core } from '../foundation.ts';
import type { EventMap } from '../events.ts';
import type { Lifecycle } from '../lifecycle.ts';
import { smtpMailer, type SmtpOptions } from './mailer.ts';
import { OutboxWorker } from './outbox-worker.ts';
import { OutboxStore, type OutgoingMail } from './outbox-store.ts';
import { PreferenceStore } from './preferences.ts';
import { aiCapMail } from './ai-cap.ts';
import { newSubmissionMail } from './new-submission.ts';
import { ShareExpiryScan } from './share-expiring.ts';
import { sharedWithMeMail } from './shared-with-me.ts';
import { guestInviteMail, type GuestInviteMail } from './guest-invite.ts';
import { ownershipMails } from './ownership.ts';
import { SubmissionDigest } from './submission-digest.ts';

export type NotificationsOptions = SmtpOptions;

export interface NotificationsFeature extends Lifecycle {
  readonly emailEnabled: boolean;
  readonly outbox: OutboxStore;
  readonly preferences: PreferenceStore;
  /** Records a message in its own transaction (false: email is off, or its dedupe key was used); the worker sends it soon after. */
  send(mail: OutgoingMail | null): Promise<boolean>;
  /** Mails a guest link to the address its creator gave (false: email is off). */
  mailGuestInvite(invite: GuestInviteMail): Promise<boolean>;
  readonly digest: SubmissionDigest;
}

export function createNotificationsFeature(
  ctx: Pick<Core, 'canvases' | 'config' | 'events' | 'instanceSecret' | 'log' | 'nodeId' | 'now' | 'scheduler' | 'sql' | 'users'>,
  options: NotificationsOptions = {},
): NotificationsFeature {
  const outbox = new OutboxStore(ctx.sql);
  const preferences = new PreferenceStore(ctx.sql);
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
  const send = async (mail: OutgoingMail | null): Promise<boolean> => {
    if (!worker || !mail || !(await outbox.enqueue(mail, ctx.now()))) return false;
    worker.kick();
    return true;
  };
  // What other features report (they do not know this one): each becomes a message off the request's path.
  const mailFor = <K extends keyof EventMap>(event: K, make: (e: EventMap[K]) => Promise<OutgoingMail | null | OutgoingMail[]>) =>
    ctx.events.on(event, async (e) => {
      try {
        const made = await make(e);
        const mails = Array.isArray(made) ? made : [made];
        if (mails.length === 0) ctx.events.emit('notifications.considered', { kind: event, outcome: 'skipped' });
        for (const mail of mails) {
          const recorded = await send(mail);
          ctx.events.emit('notifications.considered', { kind: mail?.kind ?? event, outcome: recorded ? 'recorded' : 'skipped' });
        }
      } catch (err) {
        // The change the request made stands; only its notification is lost (and said so).
        ctx.log.error('a notification could not be recorded', { event, error: err instanceof Error ? err.message : String(err) });
      }
    });
  let listening: Array<() => void> = [];
  const shareScan = new ShareExpiryScan(ctx, preferences, send);
  const digest = new SubmissionDigest(ctx, preferences, () => worker?.kick());
  return {
    emailEnabled: worker !== null,
    outbox,
    preferences,
    send,
    digest,
    async mailGuestInvite(invite) {
      // The caller (a request) learns whether it was recorded; a failure is logged without the link and reported as not sent.
      try {
        return worker ? await send(await guestInviteMail(ctx, invite)) : false;
      } catch (err) {
        ctx.log.error('a guest invite email could not be recorded', {
          canvasId: invite.canvasId,
          error: err instanceof Error ? err.message : String(err),
        });
        return false;
      }
    },
    async start() {
      if (!worker) return;
      listening = [
        mailFor('canvas.member-added', (e) => sharedWithMeMail(ctx, preferences, e)),
        mailFor('submission.created', (e) => newSubmissionMail(ctx, preferences, e)),
        mailFor('ai.canvas-cap-reached', (e) => aiCapMail(ctx, preferences, e)),
        mailFor('canvas.owner-changed', (e) => ownershipMails(ctx, preferences, e)),
        ctx.events.on('submission.created', async (e) => {
          try {
            await digest.count(e);
          } catch (err) {
            ctx.log.error('a submission could not be counted for its digest', { error: err instanceof Error ? err.message : String(err) });
          }
        }),
      ];
      await worker.start();
      shareScan.start();
      digest.start();
    },
    async stop() {
      shareScan.stop();
      digest.stop();
      for (const off of listening) off();
      listening = [];
      await worker?.stop();
    },
  };
}

// Sending one message through the operator's relay (EASEL_SMTP_URL) with
// nodemailer: it speaks SMTP, STARTTLS when the relay offers it (smtp://) or
// TLS from the start (smtps://), and AUTH from the URL's user and password.
import nodemailer from 'nodemailer';
import type { SmtpSettings } from '../config.ts';
import type { OutgoingMail } from './outbox-store.ts';

export interface Mailer {
  /** Resolves once the relay accepted the message; rejects with why not. */
  send(mail: OutgoingMail, messageId: string): Promise<void>;
  close(): void;
}

export interface SmtpOptions {
  /** Extra CA certificates to trust for the relay's TLS (tests' own CA). */
  ca?: string;
}

// A relay that stalls must not hold a lease for long: each phase is bounded well under LEASE_MS (./outbox-worker.ts).
const PHASE_TIMEOUT_MS = 20_000;

export function smtpMailer(smtp: SmtpSettings, from: string, options: SmtpOptions = {}): Mailer {
  const transport = nodemailer.createTransport({
    url: smtp.url,
    connectionTimeout: PHASE_TIMEOUT_MS,
    greetingTimeout: PHASE_TIMEOUT_MS,
    socketTimeout: PHASE_TIMEOUT_MS,
    tls: options.ca ? { ca: options.ca } : undefined,
    // The credentials are in the URL; nodemailer's own logging would print the dialogue.
    logger: false,
    debug: false,
  });
  const domain = /@([^>\s]+)>?$/.exec(from)?.[1] ?? 'easel.invalid';
  return {
    async send(mail, messageId) {
      await transport.sendMail({
        from,
        to: mail.recipient,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        // The outbox id: a message tried again after a crash carries the same Message-ID, so mail systems can tell it is one.
        messageId: `<${messageId}@${domain}>`,
        headers: {
          'Auto-Submitted': 'auto-generated',
          'X-Easel-Notification': mail.kind,
          // RFC 8058: mail programs show an Unsubscribe button that POSTs to the link, no sign-in needed.
          ...(mail.unsubscribeUrl
            ? { 'List-Unsubscribe': `<${mail.unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' }
            : {}),
        },
      });
    },
    close: () => transport.close(),
  };
}

// One message in plain text and simple HTML from the same parts: every value
// is escaped in the HTML (canvas titles, names and addresses are other
// people's text); no images, no tracking, links only where the text has them.
import { escapeHtml } from '../http/respond.ts';

export interface MessageParts {
  subject: string;
  /** Paragraphs, in order. */
  paragraphs: string[];
  /** The one address the message is about (shown as a link in HTML). */
  link?: { label: string; url: string };
  /** Why the reader gets this. */
  footer: string;
  /** The one-click link that stops these emails (unsubscribe.ts), said after the footer and sent as List-Unsubscribe. */
  unsubscribe?: string;
}

export function compose(parts: MessageParts): { subject: string; text: string; html: string; unsubscribeUrl?: string } {
  const stop = parts.unsubscribe ? ` Stop these emails: ${parts.unsubscribe}` : '';
  const text = [...parts.paragraphs, ...(parts.link ? [`${parts.link.label}: ${parts.link.url}`] : []), '--', parts.footer + stop].join(
    '\n\n',
  );
  const link = parts.link ? `<p><a href="${escapeHtml(parts.link.url)}">${escapeHtml(parts.link.label)}</a></p>` : '';
  const html =
    // The language and the encoding said in the message itself: a mail program's screen reader reads it in English, and a
    // client that drops the MIME charset still shows "é" as "é".
    '<!doctype html><html lang="en"><head><meta charset="utf-8"></head><body>' +
    parts.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    link +
    `<hr><p><small>${escapeHtml(parts.footer)}${parts.unsubscribe ? ` <a href="${escapeHtml(parts.unsubscribe)}">Stop these emails</a>.` : ''}</small></p></body></html>`;
  // A subject is one header line: no line breaks from a title.
  return {
    subject: parts.subject.replace(/[\r\n]+/g, ' '),
    text,
    html,
    ...(parts.unsubscribe ? { unsubscribeUrl: parts.unsubscribe } : {}),
  };
}

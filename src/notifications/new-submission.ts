// "New submission on your canvas", for owners who set that canvas to
// `immediate`. Never the submitted value: it is the submitter's data, read
// in the dashboard by those allowed to.
import type { Core } from '../foundation.ts';
import type { EventMap } from '../events.ts';
import { compose } from './compose.ts';
import { ownerWhoWants } from './owner.ts';
import type { OutgoingMail } from './outbox-store.ts';
import type { PreferenceStore } from './preferences.ts';
import { unsubscribeUrl } from './unsubscribe.ts';

export async function newSubmissionMail(
  ctx: Pick<Core, 'canvases' | 'config' | 'instanceSecret' | 'users'>,
  prefs: PreferenceStore,
  e: EventMap['submission.created'],
): Promise<OutgoingMail | null> {
  const to = await ownerWhoWants(
    ctx,
    e.canvasId,
    async (ownerId, canvasId) => (await prefs.submissionMode(ownerId, canvasId)) === 'immediate',
  );
  if (!to) return null;
  const { canvas, owner } = to;
  return {
    kind: 'submissions',
    recipient: owner.email,
    ...compose({
      subject: `New submission on "${canvas.title}"`,
      paragraphs: [`Someone sent a new submission to "${e.collection}" on your canvas "${canvas.title}".`],
      link: { label: 'See the submissions', url: `${ctx.config.baseUrl}/#/canvas/${encodeURIComponent(canvas.id)}` },
      footer: `You get this because you asked for an email on each new submission to this canvas. Choose which emails you get on the canvas's page in the dashboard.`,
      unsubscribe: unsubscribeUrl(ctx.config, ctx.instanceSecret, { userId: owner.id, kind: 'submissions', canvasId: canvas.id }),
    }),
  };
}

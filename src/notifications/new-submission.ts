// "New submission on your canvas", for owners who set that canvas to
// `immediate`. Never the submitted value: it is the submitter's data, read
// in the dashboard by those allowed to.
import type { AppContext } from '../context.ts';
import type { EventMap } from '../events.ts';
import { compose } from './compose.ts';
import type { OutgoingMail } from './outbox-store.ts';
import type { PreferenceStore } from './preferences.ts';

export async function newSubmissionMail(
  ctx: AppContext,
  prefs: PreferenceStore,
  e: EventMap['submission.created'],
): Promise<OutgoingMail | null> {
  const canvas = await ctx.canvases.byId(e.canvasId);
  if (!canvas || (await prefs.submissionMode(canvas.ownerId, canvas.id)) !== 'immediate') return null;
  const owner = await ctx.users.byId(canvas.ownerId);
  if (!owner?.active) return null;
  return {
    kind: 'submissions',
    recipient: owner.email,
    ...compose({
      subject: `New submission on "${canvas.title}"`,
      paragraphs: [`Someone sent a new submission to "${e.collection}" on your canvas "${canvas.title}".`],
      link: { label: 'See the submissions', url: `${ctx.config.baseUrl}/#/canvas/${encodeURIComponent(canvas.id)}` },
      footer: `You get this because you asked for an email on each new submission to this canvas. Turn it off in the dashboard, or: PUT ${ctx.config.baseUrl}/api/me/notifications {"submissions": {"${canvas.id}": "off"}}`,
    }),
  };
}

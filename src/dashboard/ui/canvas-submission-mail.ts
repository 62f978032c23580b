// The canvas page's "Email me new submissions" choice (off, at once, or an
// hourly digest), stored per canvas in the owner's preferences
// (PUT /api/me/notifications {submissions: {canvasId: mode}}). Shown to the
// owner only: the mail goes to the owner. canvas-page.ts loads it per canvas.
import type { CanvasView } from './canvas-deps.ts';
import { byId } from './elements.ts';
import type { Api, Problem } from './ui.ts';

/** What GET /api/me/notifications answers that this choice reads. */
interface NotificationPrefs {
  emailEnabled: boolean;
  submissions?: Record<string, string>;
}

let api: Api;
let problem: Problem;
let canvasId = '';
const select = () => byId('cp-submission-mail', HTMLSelectElement);

async function save(): Promise<void> {
  const mode = select().value;
  const res = await api('PUT', '/api/me/notifications', { submissions: { [canvasId]: mode } });
  const state = byId('cp-submission-mail-state');
  if (res.status !== 200) {
    state.textContent = `Not saved: ${problem(res)}`;
    return;
  }
  state.textContent = mode === 'off' ? 'Saved: no email.' : 'Saved.';
}

export async function loadSubmissionMail(givenApi: Api, describe: Problem, canvas: CanvasView): Promise<void> {
  api = givenApi;
  problem = describe;
  canvasId = canvas.id;
  const box = byId('cp-submission-mail-box');
  box.hidden = canvas.role !== 'owner';
  byId('cp-submission-mail-state').textContent = '';
  if (box.hidden) return;
  const res = await api<NotificationPrefs>('GET', '/api/me/notifications');
  if (res.status !== 200) return;
  select().value = res.data.submissions?.[canvas.id] || 'off';
  byId('cp-submission-mail-off').hidden = res.data.emailEnabled !== false;
}

export function startSubmissionMail(): void {
  select().addEventListener('change', () => void save());
}

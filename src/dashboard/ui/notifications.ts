// The dashboard's Email section: which notification emails you get
// (GET/PUT /api/me/notifications), each kind a checkbox saved as it changes.
// When the instance sends no email it says so. app.ts starts it.
import { byId } from './elements.ts';
import { type Deps, toast } from './ui.ts';

/** GET/PUT /api/me/notifications: each kind on or off (a kind left out is on), and whether this instance sends email. */
type EmailChoices = { emailEnabled?: boolean } & Record<string, boolean | undefined>;

export function startNotifications({ api, problem }: Pick<Deps, 'api' | 'problem'>): Promise<void> {
  const form = byId('notify-form', HTMLFormElement);

  function show(prefs: EmailChoices): void {
    byId('notify-off').hidden = prefs.emailEnabled !== false;
    for (const box of form.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) box.checked = prefs[box.name] !== false;
    form.dataset.ready = String(Date.now());
  }

  form.addEventListener('change', async (event) => {
    const box = event.target;
    if (!(box instanceof HTMLInputElement)) return;
    const res = await api<EmailChoices>('PUT', '/api/me/notifications', { [box.name]: box.checked });
    if (res.status !== 200) {
      toast(`Could not save your email choices: ${problem(res)}`, 'error', 'email-choices');
      box.checked = !box.checked;
      return;
    }
    toast('Email choices saved.', 'done', 'email-choices');
    show(res.data);
  });

  return (async () => {
    const res = await api<EmailChoices>('GET', '/api/me/notifications');
    if (res.status !== 200) {
      toast(`Could not load your email choices: ${problem(res)}`, 'error', 'email-choices');
      return;
    }
    show(res.data);
    byId('notifications').hidden = false;
  })();
}

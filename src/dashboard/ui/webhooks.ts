// The canvas page's Webhooks section (GET/PUT /api/canvases/{id}/webhooks):
// the canvas's hooks with their events, state and last delivery; adding one
// (URL and events), turning one off or on, removing one; a new hook's
// signing secret shown once with a Copy button; a hook's last deliveries.
// PUT replaces the whole list, so every change sends the list as it should
// be, keeping hooks by id. Every server string is set as text.
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../webhooks/events.ts';
import { byId, field, find } from './elements.ts';
import { type Api, type ApiAnswer, button, cell, type Problem, showError as showErrorIn } from './ui.ts';

/** A delivery as the API shows it (src/webhooks/store.ts DeliveryView). */
interface Delivery {
  id: string;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  httpStatus: number | null;
  durationMs: number | null;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  error: string | null;
}

/** A hook as the API shows it (src/webhooks/store.ts HookView); `secret` only in the answer that made it. */
interface Hook {
  id: string;
  url: string;
  events: WebhookEvent[];
  active: boolean;
  lastDelivery: Delivery | null;
  secret?: string;
}

/** A hook as PUT takes it: `id` keeps an existing one (and its secret). */
interface WantedHook {
  id?: string;
  url: string;
  events: WebhookEvent[];
  active?: boolean;
}

let api: Api;
let problem: Problem;
let base = '';
let hooks: Hook[] = [];
let version = 0;

const describe = (d: Delivery | null) =>
  d
    ? `${d.status}${d.httpStatus ? ` (HTTP ${d.httpStatus})` : ''}, ${new Date(d.lastAttemptAt || d.createdAt).toLocaleString()}`
    : 'none yet';

function showError(res: ApiAnswer | null): void {
  showErrorIn('cp-hook-error', res, problem);
}

/** The event checkboxes of the add form, made once. */
function buildForm(): void {
  const box = byId('cp-hook-events');
  if (box.querySelector('input')) return;
  for (const event of WEBHOOK_EVENTS) {
    const label = document.createElement('label');
    const tick = document.createElement('input');
    tick.type = 'checkbox';
    tick.name = 'events';
    tick.value = event;
    label.append(tick, ` ${event}`);
    box.append(label);
  }
  const form = byId('cp-hook-form', HTMLFormElement);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void add(form);
  });
  byId('cp-copy-hook-secret').addEventListener(
    'click',
    () => void navigator.clipboard?.writeText(byId('cp-hook-secret-value').textContent ?? ''),
  );
}

async function add(form: HTMLFormElement): Promise<void> {
  const ticked = new Set(
    [...form.querySelectorAll('input[name="events"]:checked')].map((i) => (i instanceof HTMLInputElement ? i.value : '')),
  );
  const events = WEBHOOK_EVENTS.filter((e) => ticked.has(e));
  const added = await save([...keep(hooks), { url: field(form, 'url').value.trim(), events }]);
  if (!added) return;
  form.reset();
  // The one hook the answer names with a secret is the new one.
  const fresh = added.find((h) => h.secret);
  if (fresh?.secret) {
    byId('cp-hook-secret-value').textContent = fresh.secret;
    byId('cp-hook-secret').hidden = false;
  }
}

/** The list as PUT takes it: each hook kept by its id. */
const keep = (list: Hook[]): WantedHook[] => list.map((h) => ({ id: h.id, url: h.url, events: h.events, active: h.active }));

/** PUTs the list; the answer's hooks (null when refused, the error shown). */
async function save(list: WantedHook[]): Promise<Hook[] | null> {
  const res = await api<{ hooks: Hook[] }>('PUT', `${base}/webhooks`, { hooks: list });
  if (res.status !== 200) {
    showError(res);
    return null;
  }
  showError(null);
  render(res.data.hooks);
  return res.data.hooks;
}

function render(list: Hook[]): void {
  hooks = list;
  const table = byId('cp-hooks', HTMLTableElement);
  const body = find(table, 'tbody', HTMLTableSectionElement);
  body.replaceChildren();
  for (const h of hooks) {
    const row = document.createElement('tr');
    row.dataset.hook = h.id;
    row.dataset.active = String(h.active);
    cell(row, h.url);
    cell(row, h.events.join(', '));
    cell(row, h.active ? 'active' : 'paused');
    cell(row, describe(h.lastDelivery));
    const actions = document.createElement('td');
    actions.append(
      button('Deliveries', () => void showDeliveries(h)),
      ' ',
      button(h.active ? 'Turn off' : 'Turn on', () => void save(keep(hooks).map((k) => (k.id === h.id ? { ...k, active: !h.active } : k)))),
      ' ',
      button('Remove', () => void save(keep(hooks).filter((k) => k.id !== h.id))),
    );
    row.append(actions);
    body.append(row);
  }
  table.hidden = hooks.length === 0;
  byId('cp-hooks-none').hidden = hooks.length !== 0;
  // Tests wait on this marker: it changes with every render.
  byId('cp-webhooks').dataset.ready = String(++version);
}

async function showDeliveries(h: Hook): Promise<void> {
  const res = await api<{ deliveries: Delivery[] }>('GET', `${base}/webhooks/${encodeURIComponent(h.id)}/deliveries`);
  if (res.status !== 200) {
    showError(res);
    return;
  }
  byId('cp-hook-deliveries-url').textContent = h.url;
  const box = byId('cp-hook-deliveries');
  const body = find(box, 'tbody', HTMLTableSectionElement);
  body.replaceChildren();
  for (const d of res.data.deliveries) {
    const row = document.createElement('tr');
    row.dataset.status = d.status;
    cell(row, new Date(d.createdAt).toLocaleString());
    cell(row, d.event);
    cell(row, d.status);
    cell(row, d.httpStatus === null ? '—' : String(d.httpStatus));
    cell(row, d.durationMs === null ? '—' : `${d.durationMs} ms`);
    cell(row, String(d.attempts));
    cell(row, d.error || '');
    body.append(row);
  }
  box.hidden = false;
}

/** Fills the section for the canvas at `canvasBase` (/api/canvases/{id}); hidden to whoever may not manage hooks. */
export async function loadWebhooks(client: Api, canvasBase: string, describeProblem: Problem): Promise<void> {
  api = client;
  problem = describeProblem;
  if (base !== canvasBase) {
    // Another canvas: the last one's secret and deliveries leave the screen.
    byId('cp-hook-secret').hidden = true;
    byId('cp-hook-secret-value').textContent = '';
    byId('cp-hook-deliveries').hidden = true;
    showError(null);
  }
  base = canvasBase;
  buildForm();
  const res = await api<{ hooks: Hook[] }>('GET', `${base}/webhooks`);
  byId('cp-webhooks').hidden = res.status !== 200;
  if (res.status === 200) render(res.data.hooks);
}

// The canvas page's Webhooks section (GET/PUT /api/canvases/{id}/webhooks):
// the canvas's hooks with their events, state and last delivery; adding one
// (URL and events), turning one off or on, removing one; a new hook's
// signing secret shown once with a Copy button; a hook's last deliveries.
// PUT replaces the whole list, so every change sends the list as it should
// be, keeping hooks by id. Every server string is set as text.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelUi } from './ui.ts';

export const easelWebhooks = (() => {
  const $ = (id) => document.getElementById(id);
  const EVENTS = [
    'deploy.published',
    'submission.created',
    'submission.updated',
    'submission.deleted',
    'collection.record.created',
    'collection.record.updated',
    'collection.record.deleted',
  ];
  const { button, cell } = easelUi;
  let api = null;
  let problem = null;
  let base = '';
  let hooks = [];
  let version = 0;

  const describe = (d) =>
    d
      ? `${d.status}${d.httpStatus ? ` (HTTP ${d.httpStatus})` : ''}, ${new Date(d.lastAttemptAt || d.createdAt).toLocaleString()}`
      : 'none yet';

  function showError(res) {
    easelUi.showError('cp-hook-error', res, problem);
  }

  /** The event checkboxes of the add form, made once. */
  function buildForm() {
    const box = $('cp-hook-events');
    if (box.querySelector('input')) return;
    for (const event of EVENTS) {
      const label = document.createElement('label');
      const input = document.createElement('input');
      input.type = 'checkbox';
      input.name = 'events';
      input.value = event;
      label.append(input, ` ${event}`);
      box.append(label);
    }
    $('cp-hook-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const form = e.target;
      const events = [...form.querySelectorAll('input[name="events"]:checked')].map((i) => i.value);
      const added = await save([...keep(hooks), { url: form.url.value.trim(), events }]);
      if (!added) return;
      form.reset();
      // The one hook the answer names with a secret is the new one.
      const fresh = added.find((h) => h.secret);
      if (fresh) {
        $('cp-hook-secret-value').textContent = fresh.secret;
        $('cp-hook-secret').hidden = false;
      }
    });
    $('cp-copy-hook-secret').addEventListener('click', () => navigator.clipboard?.writeText($('cp-hook-secret-value').textContent));
  }

  /** The list as PUT takes it: each hook kept by its id. */
  const keep = (list) => list.map((h) => ({ id: h.id, url: h.url, events: h.events, active: h.active }));

  /** PUTs the list; the answer's hooks (null when refused, the error shown). */
  async function save(list) {
    const res = await api('PUT', `${base}/webhooks`, { hooks: list });
    if (res.status !== 200) {
      showError(res);
      return null;
    }
    showError(null);
    render(res.data.hooks);
    return res.data.hooks;
  }

  function render(list) {
    hooks = list;
    const body = $('cp-hooks').querySelector('tbody');
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
        button(
          h.active ? 'Turn off' : 'Turn on',
          () => void save(keep(hooks).map((k) => (k.id === h.id ? { ...k, active: !h.active } : k))),
        ),
        ' ',
        button('Remove', () => void save(keep(hooks).filter((k) => k.id !== h.id))),
      );
      row.append(actions);
      body.append(row);
    }
    $('cp-hooks').hidden = hooks.length === 0;
    $('cp-hooks-none').hidden = hooks.length !== 0;
    // Tests wait on this marker: it changes with every render.
    $('cp-webhooks').dataset.ready = String(++version);
  }

  async function showDeliveries(h) {
    const res = await api('GET', `${base}/webhooks/${encodeURIComponent(h.id)}/deliveries`);
    if (res.status !== 200) {
      showError(res);
      return;
    }
    $('cp-hook-deliveries-url').textContent = h.url;
    const body = $('cp-hook-deliveries').querySelector('tbody');
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
    $('cp-hook-deliveries').hidden = false;
  }

  return {
    /** Fills the section for the canvas at `canvasBase` (/api/canvases/{id}); hidden to whoever may not manage hooks. */
    async load(client, canvasBase, describeProblem) {
      api = client;
      problem = describeProblem;
      if (base !== canvasBase) {
        // Another canvas: the last one's secret and deliveries leave the screen.
        $('cp-hook-secret').hidden = true;
        $('cp-hook-secret-value').textContent = '';
        $('cp-hook-deliveries').hidden = true;
        showError(null);
      }
      base = canvasBase;
      buildForm();
      const res = await api('GET', `${base}/webhooks`);
      $('cp-webhooks').hidden = res.status !== 200;
      if (res.status === 200) render(res.data.hooks);
    },
  };
})();

// The administration page (#/admin, instance admins): people (search,
// deactivate, who may publish Public links, their home org under tenancy), every canvas (search, disable
// with a reason, enable), instance settings (the AI key write-only), storage (database, blobs, disk), and
// notification emails sent and failed, and the audit log with filters. Every server string is set as text.
// @ts-nocheck -- moved from plain JS; typed file by file next
import * as easelAdminPickers from './admin-pickers.ts';
import { easelAuditWords } from './audit-words.ts';
import { easelSectionBar } from './section-bar.ts';
import { easelUi } from './ui.ts';
import { easelWords } from './status-words.ts';

const $ = (id) => document.getElementById(id);
let deps = null;
let users = [];
/** Tenancy on: each person has a home org (whole-org sharing admits that org only). */
let tenancy = false;
let auditBefore = null;
/** Times the people table was drawn (data-rendered): a save redraws it from the server, and a test waits for that. */
let userRenders = 0;

const { button, bytes, linkCell } = easelUi;
const showError = (id, res) => easelUi.showError(id, res, deps.problem);

async function loadUsers() {
  const res = await deps.api('GET', '/api/admin/users');
  if (res.status !== 200) return showError('ad-users-error', res);
  users = res.data.users;
  easelAdminPickers.setPeople(users);
  tenancy = res.data.tenancy === true;
  $('ad-users-org-head').hidden = !tenancy;
  renderUsers();
}

function renderUsers() {
  const q = $('ad-user-search').value.trim().toLowerCase();
  const tbody = $('ad-users').querySelector('tbody');
  tbody.replaceChildren();
  for (const u of users.filter((u) => !q || u.email.toLowerCase().includes(q) || (u.name || '').toLowerCase().includes(q))) {
    const row = document.createElement('tr');
    row.dataset.email = u.email;
    deps.cell(row, u.name && u.name !== u.email ? `${u.name} <${u.email}>` : u.email);
    deps.cell(row, `${u.active ? 'active' : 'deactivated'}${u.isAdmin ? ' · admin' : ''}`);
    const publicCell = document.createElement('td');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = u.canPublishPublic;
    box.setAttribute('aria-label', `${u.email} may publish Public links`);
    box.addEventListener('change', () => patchUser(u, { canPublishPublic: box.checked }));
    publicCell.append(box);
    row.append(publicCell);
    if (tenancy) row.append(orgCell(u));
    const actions = document.createElement('td');
    actions.append(
      button(u.active ? 'Deactivate' : 'Reactivate', () => {
        if (u.active && !confirm(`Deactivate ${u.email}? Their sessions and tokens stop working at once.`)) return;
        return patchUser(u, { active: !u.active });
      }),
    );
    row.append(actions);
    tbody.append(row);
  }
  $('ad-users').dataset.rendered = String(++userRenders);
}

/** The home org: typed and saved on Enter or when the field is left; empty clears it. */
function orgCell(u) {
  const td = document.createElement('td');
  const input = document.createElement('input');
  input.value = u.orgId || '';
  input.maxLength = 64;
  input.placeholder = 'none';
  input.setAttribute('aria-label', `Home org of ${u.email}`);
  input.addEventListener('change', () => patchUser(u, { orgId: input.value.trim() || null }));
  td.append(input);
  return td;
}

async function patchUser(u, patch) {
  const res = await deps.api('PATCH', `/api/admin/users/${encodeURIComponent(u.id)}`, patch);
  if (res.status !== 200) return showError('ad-users-error', res);
  showError('ad-users-error', null);
  await loadUsers();
}

/** Every canvas (newest 200) for the pickers and for naming grants; the table below follows its own search. */
async function loadCanvasPicker() {
  const res = await deps.api('GET', '/api/admin/canvases?limit=200');
  if (res.status === 200) easelAdminPickers.setCanvases(res.data.canvases);
}

async function loadCanvases() {
  const q = $('ad-canvas-search').q.value.trim();
  const res = await deps.api('GET', `/api/admin/canvases?limit=200&q=${encodeURIComponent(q)}`);
  const tbody = $('ad-canvases').querySelector('tbody');
  tbody.replaceChildren();
  if (res.status !== 200) return showError('ad-canvases-error', res);
  for (const c of res.data.canvases) {
    const row = document.createElement('tr');
    row.dataset.id = c.id;
    linkCell(row, c.url, c.title);
    deps.cell(row, c.ownerEmail || '');
    deps.cell(row, c.status === 'disabled' && c.disabledReason ? `Disabled: ${c.disabledReason}` : easelWords.state(c));
    const actions = document.createElement('td');
    if (c.status === 'disabled') actions.append(button('Enable', () => setDisabled(c, false)));
    else actions.append(button('Disable', () => setDisabled(c, true)));
    row.append(actions);
    tbody.append(row);
  }
  $('ad-canvases').dataset.ready = 'true';
}

async function setDisabled(c, disable) {
  let body = {};
  if (disable) {
    const reason = prompt(`Disable "${c.title}"? Its pages and API stop answering. Reason (shown to admins):`, '');
    if (reason === null) return;
    body = reason.trim() ? { reason: reason.trim() } : {};
  }
  const res = await deps.api('POST', `/api/admin/canvases/${encodeURIComponent(c.id)}/${disable ? 'disable' : 'enable'}`, body);
  if (res.status !== 200) return showError('ad-canvases-error', res);
  showError('ad-canvases-error', null);
  await loadCanvases();
}

async function loadConnections() {
  const res = await deps.api('GET', '/api/admin/connections');
  const tbody = $('ad-connections').querySelector('tbody');
  tbody.replaceChildren();
  if (res.status !== 200) return showError('ad-connections-error', res);
  const names = [];
  for (const p of res.data.connections) {
    names.push(p.name);
    const row = document.createElement('tr');
    row.dataset.name = p.name;
    deps.cell(row, p.name);
    deps.cell(row, p.origin);
    deps.cell(row, p.methods.join(' '));
    deps.cell(row, p.protectedHeaders.join(', '));
    const granted = document.createElement('td');
    for (const id of p.canvasIds) {
      const chip = document.createElement('span');
      chip.className = 'grant';
      chip.textContent = `${easelAdminPickers.canvasName(id)} `;
      chip.title = id;
      chip.append(
        button('×', async () => {
          const gone = await deps.api('DELETE', `/api/admin/canvases/${encodeURIComponent(id)}/connections/${encodeURIComponent(p.name)}`);
          if (gone.status !== 200) return showError('ad-connections-error', gone);
          await loadConnections();
        }),
      );
      granted.append(chip);
    }
    row.append(granted);
    deps.cell(row, p.usable ? 'in use' : p.enabled ? `not usable: ${p.unusableReason}` : 'disabled');
    const actions = document.createElement('td');
    actions.append(
      button('Edit', () => editConnection(p)),
      button(p.enabled ? 'Disable' : 'Enable', () =>
        connectionCall('PATCH', `/api/admin/connections/${encodeURIComponent(p.name)}`, { enabled: !p.enabled }),
      ),
      button('Delete', () => {
        if (!confirm(`Delete the Connection ${p.name}? Canvases granted it lose it at once.`)) return;
        return connectionCall('DELETE', `/api/admin/connections/${encodeURIComponent(p.name)}`);
      }),
    );
    row.append(actions);
    tbody.append(row);
  }
  for (const form of [$('ad-connection-header'), $('ad-connection-grant')]) {
    const select = form.profile;
    select.replaceChildren();
    for (const name of names) {
      const o = document.createElement('option');
      o.value = name;
      o.textContent = name;
      select.append(o);
    }
  }
  $('ad-connections').dataset.ready = names.join(',');
}

async function connectionCall(method, url, body) {
  const res = await deps.api(method, url, body);
  if (res.status !== 200 && res.status !== 201) {
    showError('ad-connections-error', res);
    return false;
  }
  showError('ad-connections-error', null);
  await loadConnections();
  return true;
}

/** The create form, filled with a Connection's origin and methods, saves changes to it instead (its name stays). */
function editConnection(p) {
  const form = $('ad-connection-create');
  form.dataset.editing = p.name;
  const name = form.querySelector('input[name="name"]');
  name.value = p.name;
  name.readOnly = true;
  form.origin.value = p.origin;
  for (const box of form.querySelectorAll('input[name="m"]')) box.checked = p.methods.includes(box.value);
  form.querySelector('button[type="submit"]').textContent = `Save changes to ${p.name}`;
  $('ad-connection-cancel').hidden = false;
  form.origin.focus();
}

function stopEditing() {
  const form = $('ad-connection-create');
  delete form.dataset.editing;
  form.reset();
  form.querySelector('input[name="name"]').readOnly = false;
  form.querySelector('button[type="submit"]').textContent = 'Create Connection';
  $('ad-connection-cancel').hidden = true;
}

function wireConnections() {
  $('ad-connection-cancel').addEventListener('click', stopEditing);
  $('ad-connection-create').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    const methods = [...form.querySelectorAll('input[name="m"]:checked')].map((b) => b.value);
    const origin = form.origin.value.trim();
    const editing = form.dataset.editing;
    const done = editing
      ? await connectionCall('PATCH', `/api/admin/connections/${encodeURIComponent(editing)}`, { origin, methods })
      : // form.name is the form's own name: the field is read by its selector.
        await connectionCall('POST', '/api/admin/connections', {
          name: form.querySelector('input[name="name"]').value.trim(),
          origin,
          methods,
        });
    if (done) stopEditing();
  });
  $('ad-connection-header').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    const body = { protectedHeaders: { [form.header.value.trim()]: form.value.value } };
    // The value leaves the page with this request and is never shown again.
    if (await connectionCall('PATCH', `/api/admin/connections/${encodeURIComponent(form.profile.value)}`, body)) form.reset();
  });
  $('ad-connection-grant').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    const id = easelAdminPickers.canvasId(form.canvas.value);
    const url = `/api/admin/canvases/${encodeURIComponent(id)}/connections/${encodeURIComponent(form.profile.value)}`;
    if (await connectionCall('PUT', url)) form.canvas.value = '';
  });
}

const NUMBER_SETTINGS = [
  'aiUserDailyUsd',
  'aiCanvasMonthlyUsd',
  'filesBytesFile',
  'filesBytesCanvas',
  'userCanvases',
  'userStorageBytes',
  'userCanvasCreatesPerHour',
];

function numberInput(label, value) {
  const input = document.createElement('input');
  input.type = 'number';
  input.min = '0';
  input.step = 'any';
  input.value = value === undefined ? '' : String(value);
  input.setAttribute('aria-label', label);
  return input;
}

/** One row per priced model, and an empty one to price a new model. */
function renderPrices() {
  const tbody = $('ad-prices').querySelector('tbody');
  tbody.replaceChildren();
  const models = [...Object.keys(settings.aiPrices), ''];
  for (const model of models) {
    const price = settings.aiPrices[model] || {};
    const row = document.createElement('tr');
    row.dataset.model = model;
    const name = document.createElement('td');
    if (model) name.textContent = model;
    else {
      const input = document.createElement('input');
      input.placeholder = 'another model';
      input.autocomplete = 'off';
      input.setAttribute('aria-label', 'Model to price');
      name.append(input);
    }
    const cellOf = (el) => {
      const td = document.createElement('td');
      td.append(el);
      return td;
    };
    const remove = document.createElement('input');
    remove.type = 'checkbox';
    remove.setAttribute('aria-label', `Remove the price of ${model}`);
    row.append(
      name,
      cellOf(numberInput(`Input price of ${model || 'the new model'}`, price.input)),
      cellOf(numberInput(`Output price of ${model || 'the new model'}`, price.output)),
      model ? cellOf(remove) : document.createElement('td'),
    );
    tbody.append(row);
  }
}

/** The aiPrices patch: changed or new prices, null for removed ones; null when nothing changed. */
function pricesPatch() {
  const patch = {};
  for (const row of $('ad-prices').querySelectorAll('tbody tr')) {
    const [inputPrice, outputPrice] = row.querySelectorAll('input[type="number"]');
    const removed = row.querySelector('input[type="checkbox"]');
    const model = row.dataset.model || row.querySelector('input:not([type])').value.trim();
    if (!model) continue;
    if (removed && removed.checked) {
      patch[model] = null;
      continue;
    }
    const next = { input: Number(inputPrice.value), output: Number(outputPrice.value) };
    const before = settings.aiPrices[model];
    if (inputPrice.value === '' || outputPrice.value === '') continue;
    if (!before || before.input !== next.input || before.output !== next.output) patch[model] = next;
  }
  return Object.keys(patch).length ? patch : null;
}
let settings = null;

async function loadSettings() {
  const res = await deps.api('GET', '/api/admin/settings');
  if (res.status !== 200) return showError('ad-settings-error', res);
  settings = res.data;
  const form = $('ad-settings');
  form.publicLinks.checked = settings.publicLinks;
  for (const name of NUMBER_SETTINGS) easelAdminPickers.toField(form[name], settings[name]);
  form.aiModels.value = settings.aiModels.join(', ');
  form.aiApiKey.value = '';
  form.aiApiKey.placeholder = settings.aiApiKeySet ? 'a key is set (type to replace)' : 'none set';
  renderPrices();
}

async function saveSettings(e) {
  e.preventDefault();
  const form = e.target;
  const patch = {};
  if (form.publicLinks.checked !== settings.publicLinks) patch.publicLinks = form.publicLinks.checked;
  for (const name of NUMBER_SETTINGS) {
    // Only what the person changed: a size shown rounded (117.74 MB) must not be written back as that rounding.
    if (form[name].value !== '' && form[name].value !== form[name].dataset.shown) patch[name] = easelAdminPickers.fromField(form[name]);
  }
  if (form.aiApiKey.value) patch.aiApiKey = form.aiApiKey.value;
  const models = form.aiModels.value
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (models.join(',') !== settings.aiModels.join(',')) patch.aiModels = models;
  const prices = pricesPatch();
  if (prices) patch.aiPrices = prices;
  if (Object.keys(patch).length === 0) return;
  const res = await deps.api('PATCH', '/api/admin/settings', patch);
  if (res.status !== 200) return showError('ad-settings-error', res);
  showError('ad-settings-error', null);
  await loadSettings();
  $('ad-settings-state').textContent = 'Saved.';
}

/** What the data directory holds, where blobs live, and the disk's room (GET /api/admin/usage). */
async function loadStorage() {
  const res = await deps.api('GET', '/api/admin/usage');
  if (res.status !== 200) return showError('ad-storage-error', res);
  const { database, blobs, disk } = res.data;
  const rows = [
    ['Database', `${bytes(database.bytes)} (write-ahead log ${bytes(database.walBytes)})`],
    blobs.remote
      ? [
          'Blobs',
          `in ${blobs.remote}; this server's cache holds ${easelWords.count(blobs.files, 'copy', 'copies')}, ${bytes(blobs.bytes)} of ${bytes(blobs.cacheBytes)}`,
        ]
      : ['Blobs', `${easelWords.files(blobs.files)}, ${bytes(blobs.bytes)}, in the data directory`],
    ['Disk', `${bytes(disk.freeBytes)} free of ${bytes(disk.totalBytes)}; writes are refused below ${bytes(disk.minFreeBytes)} free`],
  ];
  const tbody = $('ad-storage').querySelector('tbody');
  tbody.replaceChildren();
  for (const [what, value] of rows) {
    const row = document.createElement('tr');
    row.dataset.what = what.toLowerCase();
    deps.cell(row, what);
    deps.cell(row, value);
    tbody.append(row);
  }
  showError('ad-storage-error', null);
}

/** Recent notification emails and failures (GET /api/admin/notifications). */
async function loadNotifications() {
  const res = await deps.api('GET', '/api/admin/notifications');
  if (res.status !== 200) return;
  $('ad-notify-off').hidden = res.data.emailEnabled !== false;
  const tbody = $('ad-notifications').querySelector('tbody');
  tbody.replaceChildren();
  for (const d of res.data.deliveries) {
    const row = document.createElement('tr');
    row.dataset.state = d.state;
    deps.cell(row, new Date(d.createdAt).toLocaleString());
    deps.cell(row, d.kind);
    deps.cell(row, d.recipient);
    deps.cell(row, d.state === 'pending' && d.nextAttemptAt ? `waiting (next try ${new Date(d.nextAttemptAt).toLocaleString()})` : d.state);
    deps.cell(row, String(d.attempts));
    deps.cell(row, d.lastError || '');
    tbody.append(row);
  }
  $('ad-notifications').dataset.ready = String(Date.now());
}

async function loadAudit(more) {
  const form = $('ad-audit-filter');
  const q = new URLSearchParams({ limit: '50' });
  if (form.action.value.trim()) q.set('action', form.action.value.trim());
  if (form.canvas.value.trim()) q.set('canvasId', easelAdminPickers.canvasId(form.canvas.value));
  if (form.actor.value.trim()) q.set('actorId', easelAdminPickers.personId(form.actor.value));
  if (more && auditBefore) q.set('before', String(auditBefore));
  const res = await deps.api('GET', `/api/admin/audit?${q}`);
  const tbody = $('ad-audit').querySelector('tbody');
  if (!more) tbody.replaceChildren();
  if (res.status !== 200) return;
  for (const e of res.data.entries) {
    const row = document.createElement('tr');
    deps.cell(row, new Date(e.at).toLocaleString());
    const what = deps.cell(row, easelAuditWords.sentence(e));
    // The record as stored, for whoever needs the ids: on hover, never as the text.
    what.title = `${e.action}${e.detail ? ` ${JSON.stringify(e.detail)}` : ''}`;
    row.dataset.action = e.action;
    tbody.append(row);
  }
  auditBefore = res.data.nextBefore;
  $('ad-audit-more').hidden = res.data.entries.length < 50;
  $('ad-audit').dataset.ready = String(Date.now());
}

export const easelAdmin = {
  started: false,
  start(given) {
    deps = given;
    this.started = true;
    $('ad-user-search').addEventListener('input', renderUsers);
    $('ad-canvas-search').addEventListener('submit', (e) => {
      e.preventDefault();
      void loadCanvases();
    });
    $('ad-settings').addEventListener('submit', saveSettings);
    $('ad-audit-filter').addEventListener('submit', (e) => {
      e.preventDefault();
      void loadAudit(false);
    });
    $('ad-audit-more').addEventListener('click', () => loadAudit(true));
    wireConnections();
  },
  async open() {
    await loadCanvasPicker();
    await Promise.all([
      loadUsers(),
      loadCanvases(),
      loadSettings(),
      loadAudit(false),
      loadConnections(),
      loadStorage(),
      loadNotifications(),
    ]);
    easelSectionBar.build({
      nav: $('ad-nav'),
      page: $('admin-page'),
      order: ['People', 'Canvases', 'Connections', 'Settings', 'Email', 'Audit', 'Storage'],
    });
    $('admin-page').dataset.ready = 'true';
  },
};

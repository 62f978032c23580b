// The administration page (#/admin, instance admins): people (search,
// deactivate, who may publish Public links, their home org under tenancy), every canvas (search, disable
// with a reason, enable), instance settings (the AI key write-only), storage (database, blobs, disk), and
// notification emails sent and failed, and the audit log with filters. Every server string is set as text.
import * as pickers from './admin-pickers.ts';
import { sentence, type AuditEntry } from './audit-words.ts';
import { buildSectionBar } from './section-bar.ts';
import { byId, field, find } from './elements.ts';
import { type ApiAnswer, button, bytes, cell, type Deps, emptyBody, linkCell, showError as showErrorIn, toast } from './ui.ts';
import { count, files, state, type CanvasStanding } from './status-words.ts';

/** One person of GET /api/admin/users. */
interface AdminUser {
  id: string;
  email: string;
  name: string | null;
  active: boolean;
  isAdmin: boolean;
  canPublishPublic: boolean;
  orgId: string | null;
}

type UserPatch = Partial<Pick<AdminUser, 'active' | 'canPublishPublic' | 'orgId'>>;

/** One canvas of GET /api/admin/canvases. */
interface AdminCanvas extends CanvasStanding {
  id: string;
  slug: string;
  title: string;
  url: string;
  ownerEmail: string | null;
  disabledReason: string | null;
}

/** One Connection of GET /api/admin/connections (header values never come back). */
interface Connection {
  name: string;
  origin: string;
  methods: string[];
  protectedHeaders: string[];
  canvasIds: string[];
  enabled: boolean;
  usable: boolean;
  unusableReason: string | null;
}

interface ModelPrice {
  input: number;
  output: number;
}

const NUMBER_SETTINGS = [
  'aiUserDailyUsd',
  'aiCanvasMonthlyUsd',
  'filesBytesFile',
  'filesBytesCanvas',
  'userCanvases',
  'userStorageBytes',
  'userCanvasCreatesPerHour',
] as const;
type NumberSetting = (typeof NUMBER_SETTINGS)[number];

/** GET /api/admin/settings (the AI key only as whether one is set). */
type Settings = Record<NumberSetting, number> & {
  publicLinks: boolean;
  aiModels: string[];
  aiApiKeySet: boolean;
  aiPrices: Record<string, ModelPrice>;
};

/** GET /api/admin/usage. */
interface StorageUsage {
  database: { bytes: number; walBytes: number };
  blobs: { bytes: number; files: number; remote: string | null; cacheBytes: number | null };
  disk: { freeBytes: number; totalBytes: number; minFreeBytes: number };
}

/** One email of GET /api/admin/notifications. */
interface Delivery {
  state: string;
  kind: string;
  recipient: string;
  createdAt: number;
  nextAttemptAt: number | null;
  attempts: number;
  lastError: string | null;
}

export type AdminDeps = Pick<Deps, 'api' | 'problem'>;

let deps: AdminDeps | null = null;
let users: AdminUser[] = [];
/** Tenancy on: each person has a home org (whole-org sharing admits that org only). */
let tenancy = false;
let auditBefore: number | null = null;
/** Times the people table was drawn (data-rendered): a save redraws it from the server, and a test waits for that. */
let userRenders = 0;
let settings: Settings | null = null;

/** What app.ts lent at start (the page is only opened after it). */
function lent(): AdminDeps {
  if (!deps) throw new Error('administration opened before it was started');
  return deps;
}
function api<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> {
  return lent().api<T>(method, path, body);
}
const showError = (id: string, res: ApiAnswer | null) => showErrorIn(id, res, lent().problem);

async function loadUsers(): Promise<void> {
  const res = await api<{ users: AdminUser[]; tenancy?: boolean }>('GET', '/api/admin/users');
  if (res.status !== 200) return showError('ad-users-error', res);
  users = res.data.users;
  pickers.setPeople(users);
  tenancy = res.data.tenancy === true;
  byId('ad-users-org-head').hidden = !tenancy;
  renderUsers();
}

function renderUsers(): void {
  const q = byId('ad-user-search', HTMLInputElement).value.trim().toLowerCase();
  const table = byId('ad-users');
  const tbody = emptyBody(table);
  for (const u of users.filter((u) => !q || u.email.toLowerCase().includes(q) || (u.name || '').toLowerCase().includes(q))) {
    const row = document.createElement('tr');
    row.dataset.email = u.email;
    cell(row, u.name && u.name !== u.email ? `${u.name} <${u.email}>` : u.email);
    cell(row, `${u.active ? 'active' : 'deactivated'}${u.isAdmin ? ' · admin' : ''}`);
    const publicCell = document.createElement('td');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = u.canPublishPublic;
    box.setAttribute('aria-label', `${u.email} may publish Public links`);
    box.addEventListener('change', () =>
      patchUser(
        u,
        { canPublishPublic: box.checked },
        `${u.email} ${box.checked ? 'may now publish' : 'may no longer publish'} Public links.`,
      ),
    );
    publicCell.append(box);
    row.append(publicCell);
    if (tenancy) row.append(orgCell(u));
    const actions = document.createElement('td');
    actions.append(
      button(u.active ? 'Deactivate' : 'Reactivate', () => {
        if (u.active && !confirm(`Deactivate ${u.email}? Their sessions and tokens stop working at once.`)) return;
        return patchUser(u, { active: !u.active }, `${u.email} ${u.active ? 'deactivated' : 'reactivated'}.`);
      }),
    );
    row.append(actions);
    tbody.append(row);
  }
  table.dataset.rendered = String(++userRenders);
}

/** The home org: typed and saved on Enter or when the field is left; empty clears it. */
function orgCell(u: AdminUser): HTMLTableCellElement {
  const td = document.createElement('td');
  const input = document.createElement('input');
  input.value = u.orgId || '';
  input.maxLength = 64;
  input.placeholder = 'none';
  input.setAttribute('aria-label', `Home org of ${u.email}`);
  input.addEventListener('change', () => {
    const orgId = input.value.trim() || null;
    return patchUser(u, { orgId }, orgId ? `${u.email}'s home org is now ${orgId}.` : `${u.email} has no home org now.`);
  });
  td.append(input);
  return td;
}

async function patchUser(u: AdminUser, patch: UserPatch, done: string): Promise<void> {
  const res = await api('PATCH', `/api/admin/users/${encodeURIComponent(u.id)}`, patch);
  if (res.status !== 200) return showError('ad-users-error', res);
  showError('ad-users-error', null);
  toast(done, 'done', 'admin-users');
  await loadUsers();
}

/** Every canvas (newest 200) for the pickers and for naming grants; the table below follows its own search. */
async function loadCanvasPicker(): Promise<void> {
  const res = await api<{ canvases: AdminCanvas[] }>('GET', '/api/admin/canvases?limit=200');
  if (res.status === 200) pickers.setCanvases(res.data.canvases);
}

async function loadCanvases(): Promise<void> {
  const q = field(byId('ad-canvas-search', HTMLFormElement), 'q').value.trim();
  const res = await api<{ canvases: AdminCanvas[] }>('GET', `/api/admin/canvases?limit=200&q=${encodeURIComponent(q)}`);
  const table = byId('ad-canvases');
  const tbody = emptyBody(table);
  if (res.status !== 200) return showError('ad-canvases-error', res);
  for (const c of res.data.canvases) {
    const row = document.createElement('tr');
    row.dataset.id = c.id;
    linkCell(row, c.url, c.title);
    cell(row, c.ownerEmail || '');
    cell(row, c.status === 'disabled' && c.disabledReason ? `Disabled: ${c.disabledReason}` : state(c));
    const actions = document.createElement('td');
    if (c.status === 'disabled') actions.append(button('Enable', () => setDisabled(c, false)));
    else actions.append(button('Disable', () => setDisabled(c, true)));
    row.append(actions);
    tbody.append(row);
  }
  table.dataset.ready = 'true';
}

async function setDisabled(c: AdminCanvas, disable: boolean): Promise<void> {
  let body = {};
  if (disable) {
    const reason = prompt(`Disable "${c.title}"? Its pages and API stop answering. Reason (shown to admins):`, '');
    if (reason === null) return;
    body = reason.trim() ? { reason: reason.trim() } : {};
  }
  const res = await api('POST', `/api/admin/canvases/${encodeURIComponent(c.id)}/${disable ? 'disable' : 'enable'}`, body);
  if (res.status !== 200) return showError('ad-canvases-error', res);
  showError('ad-canvases-error', null);
  toast(
    disable ? `"${c.title}" is disabled: its pages and API no longer answer.` : `"${c.title}" is enabled again.`,
    'done',
    'admin-canvases',
  );
  await loadCanvases();
}

async function loadConnections(): Promise<void> {
  const res = await api<{ connections: Connection[] }>('GET', '/api/admin/connections');
  const table = byId('ad-connections');
  const tbody = emptyBody(table);
  if (res.status !== 200) return showError('ad-connections-error', res);
  const names: string[] = [];
  for (const p of res.data.connections) {
    names.push(p.name);
    const row = document.createElement('tr');
    row.dataset.name = p.name;
    cell(row, p.name);
    cell(row, p.origin);
    cell(row, p.methods.join(' '));
    cell(row, p.protectedHeaders.join(', ') || 'none');
    const granted = document.createElement('td');
    granted.className = 'grants';
    for (const id of p.canvasIds) {
      const chip = document.createElement('span');
      chip.className = 'grant';
      chip.textContent = pickers.canvasName(id);
      chip.title = id;
      const takeBack = button('×', () =>
        connectionCall(
          'DELETE',
          `/api/admin/canvases/${encodeURIComponent(id)}/connections/${encodeURIComponent(p.name)}`,
          `"${pickers.canvasName(id)}" no longer has the Connection ${p.name}.`,
        ),
      );
      // "×" alone reads as "times": the button says what it takes back, and from whom.
      takeBack.setAttribute('aria-label', `Take ${p.name} back from ${pickers.canvasName(id)}`);
      chip.append(takeBack);
      granted.append(chip);
    }
    row.append(granted);
    cell(row, p.usable ? 'in use' : p.enabled ? `not usable: ${p.unusableReason}` : 'disabled');
    const actions = document.createElement('td');
    actions.append(
      button('Edit', () => editConnection(p)),
      button(p.enabled ? 'Disable' : 'Enable', () =>
        connectionCall(
          'PATCH',
          `/api/admin/connections/${encodeURIComponent(p.name)}`,
          `The Connection ${p.name} is ${p.enabled ? 'disabled' : 'enabled'}.`,
          { enabled: !p.enabled },
        ),
      ),
      button('Delete', () => {
        if (!confirm(`Delete the Connection ${p.name}? Canvases granted it lose it at once.`)) return;
        return connectionCall('DELETE', `/api/admin/connections/${encodeURIComponent(p.name)}`, `The Connection ${p.name} is deleted.`);
      }),
    );
    row.append(actions);
    tbody.append(row);
  }
  for (const form of [byId('ad-connection-header', HTMLFormElement), byId('ad-connection-grant', HTMLFormElement)]) {
    const select = field(form, 'profile', HTMLSelectElement);
    select.replaceChildren();
    for (const name of names) {
      const o = document.createElement('option');
      o.value = name;
      o.textContent = name;
      select.append(o);
    }
  }
  table.hidden = names.length === 0;
  byId('ad-connections-none').hidden = names.length > 0;
  byId('ad-connection-more').hidden = names.length === 0;
  table.dataset.ready = names.join(',');
}

/** One change to the Connections; `done` is said when it worked. Resolves whether it did. */
async function connectionCall(method: string, url: string, done: string, body?: unknown): Promise<boolean> {
  const res = await api(method, url, body);
  if (res.status !== 200 && res.status !== 201) {
    showError('ad-connections-error', res);
    return false;
  }
  showError('ad-connections-error', null);
  toast(done, 'done', 'admin-connections');
  await loadConnections();
  return true;
}

const connectionForm = () => byId('ad-connection-create', HTMLFormElement);
const submitOf = (form: HTMLFormElement) => find(form, 'button[type="submit"]', HTMLButtonElement);
const methodBoxes = (form: HTMLFormElement) => form.querySelectorAll<HTMLInputElement>('input[name="m"]');

/** The create form, filled with a Connection's origin and methods, saves changes to it instead (its name stays). */
function editConnection(p: Connection): void {
  const form = connectionForm();
  form.dataset.editing = p.name;
  const name = field(form, 'name');
  name.value = p.name;
  name.readOnly = true;
  const origin = field(form, 'origin');
  origin.value = p.origin;
  for (const box of methodBoxes(form)) box.checked = p.methods.includes(box.value);
  submitOf(form).textContent = `Save changes to ${p.name}`;
  byId('ad-connection-create-title').textContent = `Change the Connection ${p.name}`;
  byId('ad-connection-cancel').hidden = false;
  origin.focus();
}

function stopEditing(): void {
  const form = connectionForm();
  delete form.dataset.editing;
  form.reset();
  field(form, 'name').readOnly = false;
  submitOf(form).textContent = 'Create Connection';
  byId('ad-connection-create-title').textContent = 'New Connection';
  byId('ad-connection-cancel').hidden = true;
}

function wireConnections(): void {
  byId('ad-connection-cancel').addEventListener('click', stopEditing);
  const create = connectionForm();
  create.addEventListener('submit', async (e) => {
    e.preventDefault();
    const methods = [...methodBoxes(create)].filter((b) => b.checked).map((b) => b.value);
    const origin = field(create, 'origin').value.trim();
    const editing = create.dataset.editing;
    const name = field(create, 'name').value.trim();
    const done = editing
      ? await connectionCall('PATCH', `/api/admin/connections/${encodeURIComponent(editing)}`, `Changes to ${editing} saved.`, {
          origin,
          methods,
        })
      : await connectionCall('POST', '/api/admin/connections', `The Connection ${name} is created.`, { name, origin, methods });
    if (done) stopEditing();
  });
  const header = byId('ad-connection-header', HTMLFormElement);
  header.addEventListener('submit', async (e) => {
    e.preventDefault();
    const profile = field(header, 'profile', HTMLSelectElement).value;
    const headerName = field(header, 'header').value.trim();
    const body = { protectedHeaders: { [headerName]: field(header, 'value').value } };
    // The value leaves the page with this request and is never shown again.
    const url = `/api/admin/connections/${encodeURIComponent(profile)}`;
    if (await connectionCall('PATCH', url, `The header ${headerName} of ${profile} is set.`, body)) header.reset();
  });
  const grant = byId('ad-connection-grant', HTMLFormElement);
  grant.addEventListener('submit', async (e) => {
    e.preventDefault();
    const canvasField = field(grant, 'canvas');
    const profile = field(grant, 'profile', HTMLSelectElement).value;
    const id = pickers.canvasId(canvasField.value);
    const url = `/api/admin/canvases/${encodeURIComponent(id)}/connections/${encodeURIComponent(profile)}`;
    if (await connectionCall('PUT', url, `"${pickers.canvasName(id)}" may use the Connection ${profile}.`)) canvasField.value = '';
  });
}

function numberInput(label: string, value: number | undefined): HTMLInputElement {
  const input = document.createElement('input');
  input.type = 'number';
  input.min = '0';
  input.step = 'any';
  input.value = value === undefined ? '' : String(value);
  input.setAttribute('aria-label', label);
  return input;
}

function loaded(): Settings {
  if (!settings) throw new Error('the settings are not loaded');
  return settings;
}

/** One row per priced model, and an empty one to price a new model. */
function renderPrices(): void {
  const prices = loaded().aiPrices;
  const tbody = emptyBody(byId('ad-prices'));
  for (const model of [...Object.keys(prices), '']) {
    const price = model ? prices[model] : undefined;
    const row = document.createElement('tr');
    row.dataset.model = model;
    const name = document.createElement('td');
    if (model) name.textContent = model;
    else {
      const input = document.createElement('input');
      input.placeholder = 'new model';
      input.autocomplete = 'off';
      input.setAttribute('aria-label', 'Model to price');
      name.append(input);
    }
    const cellOf = (el: HTMLElement) => {
      const td = document.createElement('td');
      td.append(el);
      return td;
    };
    const remove = document.createElement('input');
    remove.type = 'checkbox';
    remove.setAttribute('aria-label', `Remove the price of ${model}`);
    row.append(
      name,
      cellOf(numberInput(`Input price of ${model || 'the new model'}`, price?.input)),
      cellOf(numberInput(`Output price of ${model || 'the new model'}`, price?.output)),
      model ? cellOf(remove) : document.createElement('td'),
    );
    tbody.append(row);
  }
}

/** The aiPrices patch: changed or new prices, null for removed ones; null when nothing changed. */
function pricesPatch(): Record<string, ModelPrice | null> | null {
  const patch: Record<string, ModelPrice | null> = {};
  const prices = loaded().aiPrices;
  for (const row of byId('ad-prices').querySelectorAll<HTMLTableRowElement>('tbody tr')) {
    const [inputPrice, outputPrice] = row.querySelectorAll<HTMLInputElement>('input[type="number"]');
    const removed = row.querySelector<HTMLInputElement>('input[type="checkbox"]');
    const model = row.dataset.model || row.querySelector<HTMLInputElement>('input:not([type])')?.value.trim();
    if (!model || !inputPrice || !outputPrice) continue;
    if (removed && removed.checked) {
      patch[model] = null;
      continue;
    }
    const next = { input: Number(inputPrice.value), output: Number(outputPrice.value) };
    const before = Object.hasOwn(prices, model) ? prices[model] : undefined;
    if (inputPrice.value === '' || outputPrice.value === '') continue;
    if (!before || before.input !== next.input || before.output !== next.output) patch[model] = next;
  }
  return Object.keys(patch).length ? patch : null;
}

const settingsForm = () => byId('ad-settings', HTMLFormElement);

async function loadSettings(): Promise<void> {
  const res = await api<Settings>('GET', '/api/admin/settings');
  if (res.status !== 200) return showError('ad-settings-error', res);
  settings = res.data;
  const form = settingsForm();
  field(form, 'publicLinks').checked = settings.publicLinks;
  for (const name of NUMBER_SETTINGS) pickers.toField(field(form, name), settings[name]);
  field(form, 'aiModels').value = settings.aiModels.join(', ');
  const key = field(form, 'aiApiKey');
  key.value = '';
  key.placeholder = settings.aiApiKeySet ? 'a key is set (type to replace)' : 'none set';
  renderPrices();
}

async function saveSettings(e: SubmitEvent): Promise<void> {
  e.preventDefault();
  const form = settingsForm();
  const before = loaded();
  const patch: Record<string, unknown> = {};
  const publicLinks = field(form, 'publicLinks').checked;
  if (publicLinks !== before.publicLinks) patch.publicLinks = publicLinks;
  for (const name of NUMBER_SETTINGS) {
    const input = field(form, name);
    // Only what the person changed: a size shown rounded (117.74 MB) must not be written back as that rounding.
    if (input.value !== '' && input.value !== input.dataset.shown) patch[name] = pickers.fromField(input);
  }
  const key = field(form, 'aiApiKey').value;
  if (key) patch.aiApiKey = key;
  const models = field(form, 'aiModels')
    .value.split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  if (models.join(',') !== before.aiModels.join(',')) patch.aiModels = models;
  const prices = pricesPatch();
  if (prices) patch.aiPrices = prices;
  if (Object.keys(patch).length === 0) {
    toast('Nothing to save: no setting was changed.', 'done', 'admin-settings');
    return;
  }
  const res = await api('PATCH', '/api/admin/settings', patch);
  if (res.status !== 200) return showError('ad-settings-error', res);
  showError('ad-settings-error', null);
  await loadSettings();
  toast('Settings saved.', 'done', 'admin-settings');
}

/** What the data directory holds, where blobs live, and the disk's room (GET /api/admin/usage). */
async function loadStorage(): Promise<void> {
  const res = await api<StorageUsage>('GET', '/api/admin/usage');
  if (res.status !== 200) return showError('ad-storage-error', res);
  const { database, blobs, disk } = res.data;
  const rows: [string, string][] = [
    ['Database', `${bytes(database.bytes)} (write-ahead log ${bytes(database.walBytes)})`],
    blobs.remote
      ? [
          'Blobs',
          `in ${blobs.remote}; this server's cache holds ${count(blobs.files, 'copy', 'copies')}, ${bytes(blobs.bytes)} of ${bytes(blobs.cacheBytes ?? 0)}`,
        ]
      : ['Blobs', `${files(blobs.files)}, ${bytes(blobs.bytes)}, in the data directory`],
    ['Disk', `${bytes(disk.freeBytes)} free of ${bytes(disk.totalBytes)}; writes are refused below ${bytes(disk.minFreeBytes)} free`],
  ];
  const tbody = emptyBody(byId('ad-storage'));
  for (const [what, value] of rows) {
    const row = document.createElement('tr');
    row.dataset.what = what.toLowerCase();
    cell(row, what);
    cell(row, value);
    tbody.append(row);
  }
  showError('ad-storage-error', null);
}

/** Recent notification emails and failures (GET /api/admin/notifications). */
async function loadNotifications(): Promise<void> {
  const res = await api<{ emailEnabled: boolean; deliveries: Delivery[] }>('GET', '/api/admin/notifications');
  if (res.status !== 200) return;
  byId('ad-notify-off').hidden = res.data.emailEnabled !== false;
  const table = byId('ad-notifications');
  const tbody = emptyBody(table);
  for (const d of res.data.deliveries) {
    const row = document.createElement('tr');
    row.dataset.state = d.state;
    cell(row, new Date(d.createdAt).toLocaleString());
    cell(row, d.kind);
    cell(row, d.recipient);
    cell(row, d.state === 'pending' && d.nextAttemptAt ? `waiting (next try ${new Date(d.nextAttemptAt).toLocaleString()})` : d.state);
    cell(row, String(d.attempts));
    cell(row, d.lastError || '');
    tbody.append(row);
  }
  table.hidden = res.data.deliveries.length === 0;
  byId('ad-notify-none').hidden = res.data.deliveries.length > 0;
  table.dataset.ready = String(Date.now());
}

async function loadAudit(more: boolean): Promise<void> {
  const form = byId('ad-audit-filter', HTMLFormElement);
  const q = new URLSearchParams({ limit: '50' });
  const action = field(form, 'action').value.trim();
  const canvas = field(form, 'canvas').value.trim();
  const actor = field(form, 'actor').value.trim();
  if (action) q.set('action', action);
  if (canvas) q.set('canvasId', pickers.canvasId(canvas));
  if (actor) q.set('actorId', pickers.personId(actor));
  if (more && auditBefore) q.set('before', String(auditBefore));
  const res = await api<{ entries: AuditEntry[]; nextBefore: number | null }>('GET', `/api/admin/audit?${q}`);
  const table = byId('ad-audit');
  const tbody = find(table, 'tbody', HTMLTableSectionElement);
  if (!more) tbody.replaceChildren();
  if (res.status !== 200) return;
  for (const e of res.data.entries) {
    const row = document.createElement('tr');
    cell(row, new Date(e.at).toLocaleString());
    const what = cell(row, sentence(e));
    // The record as stored, for whoever needs the ids: on hover, never as the text.
    what.title = `${e.action}${e.detail ? ` ${JSON.stringify(e.detail)}` : ''}`;
    row.dataset.action = e.action;
    tbody.append(row);
  }
  auditBefore = res.data.nextBefore;
  byId('ad-audit-more').hidden = res.data.entries.length < 50;
  table.dataset.ready = String(Date.now());
}

/** Whether start() ran: the page is there for admins only. */
export function adminStarted(): boolean {
  return deps !== null;
}

/** Wires the page's forms once, for an admin; open() fills it. */
export function startAdmin(given: AdminDeps): void {
  deps = given;
  byId('ad-user-search').addEventListener('input', renderUsers);
  byId('ad-canvas-search').addEventListener('submit', (e) => {
    e.preventDefault();
    void loadCanvases();
  });
  settingsForm().addEventListener('submit', (e) => void saveSettings(e));
  byId('ad-audit-filter').addEventListener('submit', (e) => {
    e.preventDefault();
    void loadAudit(false);
  });
  byId('ad-audit-more').addEventListener('click', () => loadAudit(true));
  wireConnections();
}

/** Loads every part of the page (#/admin). */
export async function openAdmin(): Promise<void> {
  await loadCanvasPicker();
  await Promise.all([loadUsers(), loadCanvases(), loadSettings(), loadAudit(false), loadConnections(), loadStorage(), loadNotifications()]);
  buildSectionBar({
    nav: byId('ad-nav'),
    page: byId('admin-page'),
    order: ['People', 'Canvases', 'Connections', 'Settings', 'Email', 'Audit', 'Storage'],
  });
  byId('admin-page').dataset.ready = 'true';
}

// The Easel dashboard: who is signed in, their canvases, and a form to create
// one; it starts the other views and routes between them (#/…). Plain DOM,
// same-origin fetches with the session cookie; text from the server is only
// ever set with textContent.
import { adminStarted, openAdmin, startAdmin } from './admin.ts';
import { closeCanvasPage, openCanvasPage, startCanvasPage } from './canvas-page.ts';
import { welcomeCreated } from './canvas-welcome.ts';
import { startNotifications } from './notifications.ts';
import { sharedWith, state, type CanvasStanding } from './status-words.ts';
import { startTokens } from './tokens.ts';
import { labelTableCells } from './cell-labels.ts';
import { byId, field } from './elements.ts';
import {
  type ApiAnswer,
  type CanvasPageDeps,
  cell,
  clearToasts,
  emptyBody,
  type GuestCanvas,
  keepRoomForToasts,
  linkCell,
  toast,
  whenCell,
} from './ui.ts';

/** The editor's script (editor.ts, loaded on demand) sets this. */
interface EditorApi {
  open(id: string, deps: { api: typeof api; problem: typeof problem }): Promise<void>;
  close(): Promise<void>;
  hasUnsavedChanges(): boolean;
}
declare global {
  interface Window {
    easelEditor?: EditorApi;
  }
}

/** GET /api/me. */
interface Me {
  name: string | null;
  email: string;
  isAdmin: boolean;
}

/** One canvas of GET /api/canvases, as the home list shows it. */
interface HomeCanvas extends CanvasStanding {
  id: string;
  title: string;
  slug: string;
  url: string;
  accessMode: string;
  /** This person's role on it (admin: through administration). */
  role: string | null;
  /** How many people its list holds (only for those who manage it). */
  people?: number;
  updatedAt: number;
  lastDeployAt: number | null;
  /** Published by a canvas's page (authoring): from which app, and whether that was taken back. */
  authored?: { sourceApp: string | null; revokedAt: number | null } | null;
  /** Its AI spend this month against its cap (only for those who manage it). */
  aiMonth?: { month: string; spentUsd: number; capUsd: number; calls: number };
}

/** POST /api/canvases and POST /api/gallery/{id}/use: the new canvas with its deploy key, shown this once. */
interface CreatedCanvas {
  id: string;
  title: string;
  url: string;
  apiKey: string;
}

/** GET /api/admin/ai-usage: this month's spend, by canvas, person and model. */
interface InstanceAiUsage {
  from: string;
  to: string;
  totals: { costUsd: number; calls: number };
  caps: { userDailyUsd: number; canvasMonthlyUsd: number };
  byCanvas?: { canvasId: string; title: string | null; slug: string | null; calls: number; costUsd: number }[];
  byUser: { actorId: string; actorKind: string; name: string | null; email: string | null; calls: number; costUsd: number }[];
  byModel: { model: string; calls: number; costUsd: number }[];
}

/** One guest link of GET /api/canvases/{id}/guest-invites. */
interface GuestInvite {
  inviteId: string;
  name: string;
  expiresAt: number;
  revokedAt: number | null;
  active: boolean;
}

/** One listed canvas of GET /api/gallery. */
interface GalleryCanvas {
  id: string;
  url: string;
  title: string;
  ownerName: string;
  templatable: boolean;
}

/** Set once the dashboard loaded signed in: a 401 after that means the session ended (expired, or signed out elsewhere). */
let signedIn = false;

function signInAgain(): void {
  location.assign('/auth/login?returnTo=' + encodeURIComponent(location.pathname + location.search + location.hash));
}

/**
 * The one client every page calls: `body` goes as JSON, `options.raw` as the
 * bytes themselves (the editor's files). Answers `{status, data, text}`: data
 * is the body parsed as JSON (null when it is not), text the body as received.
 */
async function api<T = unknown>(method: string, path: string, body?: unknown, options: { raw?: BodyInit } = {}): Promise<ApiAnswer<T>> {
  const headers: Record<string, string> = {};
  const init: RequestInit = { method, credentials: 'same-origin', headers };
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  } else if (options.raw !== undefined) {
    headers['content-type'] = 'application/octet-stream';
    init.body = options.raw;
  }
  const res = await fetch(path, init);
  if (res.status === 401 && signedIn) {
    // Not "unauthorized" under a header that still names the person: sign in again and come back here.
    signInAgain();
    return new Promise(() => {});
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  // The one place the server's JSON meets the views' types: each caller names the shape its route answers.
  return { status: res.status, data: data as T, text };
}

const words = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/** What an error body says: {message}, {code}, {error: "…"} or {error: {message, code}}. */
function said(d: unknown): string | undefined {
  if (!d || typeof d !== 'object') return words(d);
  return (
    words('message' in d ? d.message : undefined) ?? words('code' in d ? d.code : undefined) ?? ('error' in d ? said(d.error) : undefined)
  );
}

function problem(res: ApiAnswer): string {
  return said(res.data) ?? `HTTP ${res.status}`;
}

/** The views' line for the person that is neither a result nor an error they named: a toast that stays; '' clears every toast. */
function showSignedOut(): void {
  const who = byId('who');
  who.textContent = 'Not signed in. ';
  const link = document.createElement('a');
  // Back to where the person was going (a canvas page link shared with them), once signed in.
  const back = '/auth/login?returnTo=' + encodeURIComponent(location.pathname + location.search + location.hash);
  link.href = back;
  link.textContent = 'Sign in';
  who.append(link);
  byId('landing-sign-in', HTMLAnchorElement).href = back;
  byId('landing').hidden = false;
}

function showSignedIn(me: Me): void {
  const who = byId('who');
  // Its parts stand apart by the header's gap (style.css #who), not by spaces in the text.
  who.textContent = `Signed in as ${me.name || me.email} (${me.email})`;
  if (me.isAdmin) {
    const admin = document.createElement('a');
    admin.href = '#/admin';
    admin.id = 'admin-link';
    admin.textContent = 'admin';
    who.append(admin);
  }
  const form = document.createElement('form');
  form.className = 'inline';
  const button = document.createElement('button');
  button.type = 'submit';
  button.textContent = 'Sign out';
  form.append(button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const out = await api<{ endSessionUrl?: string }>('POST', '/auth/logout');
    // oidc: the provider ends its own session too, then sends the browser back here.
    if (out.data?.endSessionUrl) location.assign(out.data.endSessionUrl);
    else location.reload();
  });
  who.append(form);
}

/** The whole list as loaded; the table shows it searched and sorted (canvas-filter). */
let allCanvases: HomeCanvas[] = [];

type Compare = (a: HomeCanvas, b: HomeCanvas) => number;
const byChanged: Compare = (a, b) => b.updatedAt - a.updatedAt;
/** The list's sort choices (the canvas-filter form's sort field), by the field's value. */
const SORTS = new Map<string, Compare>([
  ['changed', byChanged],
  ['deployed', (a, b) => (b.lastDeployAt ?? 0) - (a.lastDeployAt ?? 0)],
  ['title', (a, b) => a.title.localeCompare(b.title)],
]);

const filterForm = () => byId('canvas-filter', HTMLFormElement);

function shownCanvases(): HomeCanvas[] {
  const form = filterForm();
  const q = field(form, 'q').value.trim().toLowerCase();
  const found = allCanvases.filter((c) => !q || c.title.toLowerCase().includes(q) || c.slug.includes(q) || c.url.toLowerCase().includes(q));
  byId('canvas-filter-count').textContent = q ? `${found.length} of ${allCanvases.length}` : '';
  return found.sort(SORTS.get(field(form, 'sort', HTMLSelectElement).value) ?? byChanged);
}

function renderCanvases(canvases: HomeCanvas[]): void {
  allCanvases = canvases;
  filterForm().hidden = canvases.length < 2;
  renderShown();
}

const manages = (c: HomeCanvas) => c.role === 'owner' || c.role === 'editor' || c.role === 'admin';

/** Renders the list as loaded (the AI spend came with it: no request per canvas, none per keystroke in the search). */
function renderShown(): void {
  const table = byId('canvases');
  const tbody = emptyBody(table);
  for (const c of shownCanvases()) {
    const row = document.createElement('tr');
    const title = document.createElement('td');
    if (manages(c)) {
      // Its page: deploy, share, versions, files, key.
      const open = document.createElement('a');
      open.href = `#/canvas/${encodeURIComponent(c.id)}`;
      open.className = 'canvas-link';
      open.textContent = c.title;
      title.append(open);
    } else title.textContent = c.title;
    // Its address under its title, smaller: one column for both leaves the others room to stay on one line.
    const address = document.createElement('div');
    address.className = 'canvas-address';
    const link = document.createElement('a');
    link.href = c.url;
    // Without "https://": every address has it, and the column is narrow.
    link.textContent = c.url.replace(/^https?:\/\//, '');
    address.append(link);
    title.append(address);
    const role = document.createElement('td');
    role.textContent = c.role || '';
    const status = document.createElement('td');
    status.textContent = state(c);
    if (c.authored) {
      // Published by a canvas's page (authoring): say which app, and whether it was taken back.
      const from = document.createElement('div');
      from.className = 'authored';
      from.textContent = `Published by a page${c.authored.sourceApp ? ` (${c.authored.sourceApp})` : ''}${c.authored.revokedAt ? ' · revoked' : ''}`;
      status.append(from);
    }
    const spend = document.createElement('td');
    spend.className = 'ai-spend';
    // Owners, editors and admins see the canvas's AI budget; a viewer's row has no figure.
    if (c.aiMonth) {
      spend.textContent = `${usd(c.aiMonth.spentUsd)} of ${usd(c.aiMonth.capUsd)}`;
      spend.title = `${c.aiMonth.calls} AI calls in ${c.aiMonth.month}`;
    }
    const actions = document.createElement('td');
    if (manages(c)) {
      const guests = document.createElement('button');
      guests.type = 'button';
      guests.className = 'guest-links';
      guests.textContent = 'Guest links';
      guests.addEventListener('click', () => openGuests(c));
      actions.append(guests);
      if (c.authored && !c.authored.revokedAt) actions.append(revokeButton(c));
    }
    const shared = document.createElement('td');
    shared.textContent = sharedWith(c);
    row.append(title, role, status, shared);
    whenCell(row, c.lastDeployAt).dataset.column = 'last-deploy';
    row.append(spend, actions);
    tbody.append(row);
  }
  byId('empty').hidden = allCanvases.length > 0;
  // A search that finds nothing says so, instead of the table's bare headings.
  const q = field(filterForm(), 'q').value.trim();
  const none = allCanvases.length > 0 && tbody.rows.length === 0;
  byId('canvas-no-match').textContent = none ? `Nothing here matches "${q}".` : '';
  byId('canvas-no-match').hidden = !none;
  table.hidden = allCanvases.length === 0 || none;
}

function wireCanvasFilter(): void {
  const form = filterForm();
  form.addEventListener('submit', (e) => e.preventDefault());
  form.addEventListener('input', renderShown);
  form.addEventListener('change', renderShown);
}

/** Takes back a canvas a page published: it stops serving and stays listed as revoked. */
function revokeButton(c: HomeCanvas): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'revoke';
  button.textContent = 'Revoke';
  button.addEventListener('click', async () => {
    if (!confirm(`Stop serving "${c.title}"? A new publish from its page shares it again.`)) return;
    const res = await api('POST', `/api/canvases/${encodeURIComponent(c.id)}/revoke`);
    if (res.status !== 200) {
      toast(`Could not revoke "${c.title}": ${problem(res)}`, 'error', `revoke-${c.id}`);
      return;
    }
    toast(`"${c.title}" no longer serves.`, 'done', `revoke-${c.id}`);
    await loadCanvases();
  });
  return button;
}

async function loadCanvases(): Promise<void> {
  const res = await api<{ canvases?: HomeCanvas[] }>('GET', '/api/canvases');
  if (res.status !== 200) {
    toast(`Could not list canvases: ${problem(res)}`, 'error', 'canvases');
    return;
  }
  clearToasts('canvases');
  byId('list').hidden = false;
  renderCanvases(res.data.canvases || []);
  // The list and its spend figures are complete (tests wait on this marker).
  byId('canvases').dataset.ready = 'true';
}

const usd = (n: number) => `$${Number(n).toFixed(n > 0 && n < 0.01 ? 4 : 2)}`;

/** Instance admins: this month's AI spend by canvas, person and model. */
async function loadInstanceSpend(): Promise<void> {
  const res = await api<InstanceAiUsage>('GET', '/api/admin/ai-usage');
  if (res.status !== 200) return;
  const r = res.data;
  byId('ai-total').textContent =
    `${usd(r.totals.costUsd)} in ${r.totals.calls} calls from ${r.from} to ${r.to}; caps ${usd(r.caps.userDailyUsd)} per person per day, ${usd(r.caps.canvasMonthlyUsd)} per canvas per month.`;
  const table = byId('ai-breakdown');
  const tbody = emptyBody(table);
  const rows: [kind: string, name: string, figures: { calls: number; costUsd: number }][] = [
    ...(r.byCanvas || []).map((x): [string, string, typeof x] => ['canvas', x.title || x.slug || x.canvasId, x]),
    ...r.byUser.map((x): [string, string, typeof x] => [x.actorKind === 'guest' ? 'guest' : 'person', x.name || x.email || x.actorId, x]),
    ...r.byModel.map((x): [string, string, typeof x] => ['model', x.model, x]),
  ];
  for (const [kind, name, x] of rows) {
    const row = document.createElement('tr');
    cell(row, kind);
    cell(row, name);
    cell(row, String(x.calls));
    cell(row, usd(x.costUsd));
    tbody.append(row);
  }
  table.hidden = rows.length === 0;
  byId('ai').hidden = false;
}

/** The canvas whose guest links are shown. */
let guestCanvas: GuestCanvas | null = null;
const guestForm = () => byId('guest-form', HTMLFormElement);

/**
 * Opens the guest links panel right after `near` (the canvas page's Sharing
 * section, or the list), where the person is, and moves focus to its heading.
 */
async function openGuests(canvas: GuestCanvas, near: HTMLElement = byId('list')): Promise<void> {
  guestCanvas = canvas;
  byId('guests-title').textContent = canvas.title;
  byId('guest-created').hidden = true;
  byId('guest-emailed').hidden = true;
  byId('guest-copied').textContent = '';
  const panel = byId('guests');
  near.after(panel);
  panel.hidden = false;
  byId('guests-heading').focus();
  panel.scrollIntoView({ block: 'nearest' });
  // Where email matters: without it the address field is off and says why.
  const prefs = await api<{ emailEnabled?: boolean }>('GET', '/api/me/notifications');
  const off = prefs.status === 200 && prefs.data.emailEnabled === false;
  byId('guest-email-off').hidden = !off;
  field(guestForm(), 'email').disabled = off;
  await loadGuests();
}

/** The guest links' path of the canvas whose panel is open. */
function guestPath(suffix = ''): string {
  if (!guestCanvas) throw new Error('no guest links panel is open');
  return `/api/canvases/${encodeURIComponent(guestCanvas.id)}/guest-invites${suffix}`;
}

async function loadGuests(): Promise<void> {
  const res = await api<{ invites: GuestInvite[] }>('GET', guestPath());
  if (res.status !== 200) {
    toast(`Could not list guest links: ${problem(res)}`, 'error', 'guests');
    return;
  }
  const tbody = emptyBody(byId('guest-list'));
  for (const invite of res.data.invites) {
    const row = document.createElement('tr');
    cell(row, invite.name);
    cell(row, new Date(invite.expiresAt).toLocaleString());
    cell(row, invite.revokedAt ? 'revoked' : invite.active ? 'active' : 'not working');
    const actions = document.createElement('td');
    if (!invite.revokedAt) {
      const revoke = document.createElement('button');
      revoke.type = 'button';
      revoke.textContent = 'Revoke';
      revoke.addEventListener('click', async () => {
        const done = await api('DELETE', guestPath(`/${encodeURIComponent(invite.inviteId)}`));
        if (done.status !== 200) toast(`Could not revoke the link: ${problem(done)}`, 'error', 'guests');
        else toast(`Guest link "${invite.name}" revoked: it no longer opens the canvas.`, 'done', 'guests');
        await loadGuests();
      });
      actions.append(revoke);
    }
    row.append(actions);
    tbody.append(row);
  }
  byId('guests').dataset.loaded = String(Date.now());
}

function wireGuestForm(): void {
  byId('copy-guest-url').addEventListener('click', async () => {
    await navigator.clipboard?.writeText(byId('guest-url').textContent ?? '');
    byId('guest-copied').textContent = 'Copied.';
  });
  const form = guestForm();
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = field(form, 'name').value.trim();
    const days = Number(field(form, 'days').value);
    const emailField = field(form, 'email');
    const email = emailField.disabled ? '' : emailField.value.trim();
    const res = await api<{ url: string; emailed: boolean }>('POST', guestPath(), {
      ...(name ? { name } : {}),
      expiresInDays: days,
      ...(email ? { email } : {}),
    });
    if (res.status !== 201) {
      toast(`Could not create the link: ${problem(res)}`, 'error', 'guests');
      return;
    }
    toast('Guest link created: copy it below.', 'done', 'guests');
    byId('guest-url').textContent = res.data.url;
    byId('guest-created').hidden = false;
    const emailed = byId('guest-emailed');
    emailed.textContent = res.data.emailed ? `Emailed to ${email}.` : email ? 'Not emailed: this instance sends no email.' : '';
    emailed.hidden = !email;
    // A link is for one guest: the next one starts from an empty name and address (the days stay).
    field(form, 'name').value = '';
    emailField.value = '';
    await loadGuests();
  });
}

/** The gallery: what others listed that this person may open; templates become canvases of their own. */
async function loadGallery(): Promise<void> {
  const q = field(byId('gallery-search', HTMLFormElement), 'q').value.trim();
  const res = await api<{ canvases: GalleryCanvas[] }>('GET', `/api/gallery?q=${encodeURIComponent(q)}`);
  if (res.status !== 200) return;
  byId('gallery').hidden = false;
  const list = byId('gallery-list');
  const tbody = emptyBody(list);
  for (const c of res.data.canvases) {
    const row = document.createElement('tr');
    row.dataset.id = c.id;
    linkCell(row, c.url, c.title);
    cell(row, c.ownerName);
    const actions = document.createElement('td');
    if (c.templatable) {
      const use = document.createElement('button');
      use.type = 'button';
      use.textContent = 'Use as template';
      use.addEventListener('click', async () => {
        const made = await api<CreatedCanvas>('POST', `/api/gallery/${encodeURIComponent(c.id)}/use`, {});
        const error = byId('gallery-error');
        if (made.status !== 201) {
          error.textContent = problem(made);
          error.hidden = false;
          return;
        }
        error.hidden = true;
        const { apiKey, ...canvas } = made.data;
        showCreated(canvas, apiKey);
        toast(`"${canvas.title}" is yours now, published at ${canvas.url}.`, 'done', 'gallery');
        await loadCanvases();
      });
      actions.append(use);
    }
    row.append(actions);
    tbody.append(row);
  }
  // "Nothing listed yet" only when nothing is; a search that finds nothing says that instead.
  const found = res.data.canvases.length > 0;
  byId('gallery-empty').hidden = found || q !== '';
  byId('gallery-no-match').textContent = !found && q !== '' ? `No listed canvas matches "${q}".` : '';
  byId('gallery-no-match').hidden = found || q === '';
  list.hidden = !found;
  list.dataset.ready = q;
}

function wireGallery(): void {
  byId('gallery-search').addEventListener('submit', (e) => {
    e.preventDefault();
    void loadGallery();
  });
}

function showCreated(canvas: Omit<CreatedCanvas, 'apiKey'>, apiKey: string): void {
  byId('created-title').textContent = canvas.title;
  byId('created-key').textContent = apiKey;
  const deploy = new URL(`/v1/canvases/${encodeURIComponent(canvas.id)}/deploy`, location.origin).href;
  byId('created-curl').textContent = `curl -X PUT --data-binary @site.zip \\\n  -H "Authorization: Bearer ${apiKey}" \\\n  ${deploy}`;
  byId('created').hidden = false;
}

function wireCreateForm(): void {
  byId('copy-key').addEventListener('click', () => void navigator.clipboard?.writeText(byId('created-key').textContent ?? ''));
  const form = byId('create-form', HTMLFormElement);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    // form.title would be the form's own title attribute: go through its elements.
    const title = field(form, 'title').value.trim();
    const slug = field(form, 'slug').value.trim();
    if (!title) {
      toast('Could not create the canvas: give it a title (spaces alone are not one).', 'error', 'create');
      return;
    }
    const res = await api<CreatedCanvas>('POST', '/api/canvases', slug ? { title, slug } : { title });
    if (res.status !== 201) {
      toast(`Could not create the canvas: ${problem(res)}`, 'error', 'create');
      return;
    }
    const { apiKey, ...canvas } = res.data;
    toast(`"${canvas.title}" created: drop its folder below to publish it.`, 'done', 'create');
    form.reset();
    byId('created').hidden = true;
    // Its page opens on deploying the first version (a drop zone first), with the key for CI there once.
    welcomeCreated(canvas, apiKey);
    await loadCanvases();
    location.hash = `#/canvas/${encodeURIComponent(canvas.id)}`;
  });
  // The empty states' next step: the create form, ready to type.
  for (const start of document.querySelectorAll('.start-create')) {
    start.addEventListener('click', () => {
      const title = field(form, 'title');
      title.scrollIntoView({ block: 'center' });
      title.focus();
    });
  }
}

async function start(): Promise<void> {
  keepRoomForToasts();
  const me = await api<Me>('GET', '/api/me');
  if (me.status === 401) {
    showSignedOut();
    return;
  }
  if (me.status !== 200) {
    byId('who').textContent = '';
    toast(`Could not load your account: ${problem(me)}`, 'error');
    return;
  }
  signedIn = true;
  labelTableCells();
  showSignedIn(me.data);
  byId('create').hidden = false;
  wireCreateForm();
  wireCanvasFilter();
  wireGuestForm();
  await loadCanvases();
  await startTokens({ api, problem });
  await startNotifications({ api, problem });
  if (me.data.isAdmin) await loadInstanceSpend();
  const canvasPageDeps: CanvasPageDeps = { api, problem, cell, loadCanvases, openGuests };
  startCanvasPage(canvasPageDeps);
  wireGallery();
  await loadGallery();
  if (me.data.isAdmin) startAdmin({ api, problem });
  window.addEventListener('hashchange', () => {
    // The guest links panel belongs to where it was opened: another view closes it (not the first view, which a
    // quick click may already have opened it on).
    byId('guests').hidden = true;
    void route().then(() => {
      // Back on the list after changing a canvas elsewhere (its sharing, title, a deploy): the list says it now.
      if (document.body.dataset.view === 'home') return Promise.all([loadCanvases(), loadGallery()]);
    });
  });
  await route();
  // Everything the first view asked for has answered (tests wait on this).
  document.body.dataset.loaded = 'true';
}

/** The editor's script (CodeMirror, bundled at build time) is loaded the first time someone edits. */
let editorScript: Promise<EditorApi> | null = null;
function loadEditor(): Promise<EditorApi> {
  editorScript ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/assets/editor.js';
    script.onload = () => (window.easelEditor ? resolve(window.easelEditor) : reject(new Error('the editor did not start')));
    script.onerror = () => {
      editorScript = null;
      reject(new Error('the editor could not be loaded'));
    };
    document.head.append(script);
  });
  return editorScript;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** `#/canvas/<id>` is a canvas's page (`/data`: at its Data section, as digest emails link), `#/canvas/<id>/edit` its editor, `#/admin` the administration (admins); anything else the list. */
async function route(): Promise<void> {
  const m = /^#\/canvas\/([A-Za-z0-9]+)(\/edit|\/data)?$/.exec(location.hash);
  const id = m?.[1];
  const editing = Boolean(m && m[2] === '/edit');
  const admin = location.hash === '#/admin' && adminStarted();
  document.body.dataset.view = editing ? 'editor' : m ? 'canvas' : admin ? 'admin' : 'home';
  byId('canvas-page').hidden = !m || editing;
  byId('editor-page').hidden = !editing;
  byId('admin-page').hidden = !admin;
  // Leaving the editor keeps what was typed: it is saved to the draft first.
  if (!editing && window.easelEditor) await window.easelEditor.close();
  if (editing && id) {
    closeCanvasPage();
    const editor = await loadEditor().catch((err: unknown) => {
      toast(`Something went wrong: ${message(err)}`, 'error', 'editor');
      return null;
    });
    if (editor) await editor.open(id, { api, problem });
  } else if (id) {
    await openCanvasPage(id);
    if (m[2] === '/data') byId('cp-data').scrollIntoView();
  } else closeCanvasPage();
  if (admin) await openAdmin();
}

// Unsaved editor changes are not lost to a closed tab or a link elsewhere.
window.addEventListener('beforeunload', (event) => {
  if (window.easelEditor?.hasUnsavedChanges()) event.preventDefault();
});

start().catch((err: unknown) => toast(`Something went wrong: ${message(err)}`, 'error'));

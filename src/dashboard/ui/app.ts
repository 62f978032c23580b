// The Easel dashboard: who is signed in, their canvases, and a form to create
// one. Plain DOM, same-origin fetches with the session cookie; text from the
// server is only ever set with textContent.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelAdmin } from './admin.ts';
import { easelCanvasPage } from './canvas-page.ts';
import { easelCanvasWelcome } from './canvas-welcome.ts';
import { startNotifications } from './notifications.ts';
import { startTokens } from './tokens.ts';
import { clearToasts, easelUi, toast } from './ui.ts';
import { easelWords } from './status-words.ts';

const $ = (id) => document.getElementById(id);

/** Set once the dashboard loaded signed in: a 401 after that means the session ended (expired, or signed out elsewhere). */
let signedIn = false;

function signInAgain() {
  location.assign('/auth/login?returnTo=' + encodeURIComponent(location.pathname + location.search + location.hash));
}

/**
 * The one client every page calls: `body` goes as JSON, `options.raw` as the
 * bytes themselves (the editor's files). Answers `{status, data, text}`: data
 * is the body parsed as JSON (null when it is not), text the body as received.
 */
async function api(method, path, body, options = {}) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  } else if (options.raw !== undefined) {
    init.headers['content-type'] = 'application/octet-stream';
    init.body = options.raw;
  }
  const res = await fetch(path, init);
  if (res.status === 401 && signedIn) {
    // Not "unauthorized" under a header that still names the person: sign in again and come back here.
    signInAgain();
    return new Promise(() => {});
  }
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  return { status: res.status, data, text };
}

function problem(res) {
  const d = res.data || {};
  return d.message || d.code || d.error || `HTTP ${res.status}`;
}

/** The views' line for the person (ui.ts toast); '' clears what is shown. */
function notice(text) {
  if (text) toast(text, 'note');
  else clearToasts();
}

function showSignedOut() {
  const who = $('who');
  who.textContent = 'Not signed in. ';
  const link = document.createElement('a');
  // Back to where the person was going (a canvas page link shared with them), once signed in.
  const back = '/auth/login?returnTo=' + encodeURIComponent(location.pathname + location.search + location.hash);
  link.href = back;
  link.textContent = 'Sign in';
  who.append(link);
  $('landing-sign-in').href = back;
  $('landing').hidden = false;
}

function showSignedIn(me) {
  const who = $('who');
  who.textContent = `Signed in as ${me.name || me.email} (${me.email})${me.isAdmin ? ' · ' : ''}`;
  if (me.isAdmin) {
    const admin = document.createElement('a');
    admin.href = '#/admin';
    admin.id = 'admin-link';
    admin.textContent = 'admin';
    who.append(admin, ' ');
  }
  const form = document.createElement('form');
  form.className = 'inline';
  const button = document.createElement('button');
  button.type = 'submit';
  button.textContent = 'Sign out';
  form.append(button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const out = await api('POST', '/auth/logout');
    // oidc: the provider ends its own session too, then sends the browser back here.
    if (out.data && out.data.endSessionUrl) location.assign(out.data.endSessionUrl);
    else location.reload();
  });
  who.append(form);
}

/** Renders the list; resolves once every spend figure it asked for is in. */
/** The whole list as loaded; the table shows it searched and sorted (canvas-filter). */
let allCanvases = [];

const SORTS = {
  changed: (a, b) => b.updatedAt - a.updatedAt,
  deployed: (a, b) => (b.lastDeployAt ?? 0) - (a.lastDeployAt ?? 0),
  title: (a, b) => a.title.localeCompare(b.title),
};

function shownCanvases() {
  const form = $('canvas-filter');
  const q = form.q.value.trim().toLowerCase();
  const found = allCanvases.filter((c) => !q || c.title.toLowerCase().includes(q) || c.slug.includes(q) || c.url.toLowerCase().includes(q));
  $('canvas-filter-count').textContent = q ? `${found.length} of ${allCanvases.length}` : '';
  return found.sort(SORTS[form.sort.value] || SORTS.changed);
}

function renderCanvases(canvases) {
  allCanvases = canvases;
  $('canvas-filter').hidden = canvases.length < 2;
  return renderShown();
}

function renderShown() {
  const tbody = $('canvases').querySelector('tbody');
  tbody.replaceChildren();
  const spends = [];
  for (const c of shownCanvases()) {
    const row = document.createElement('tr');
    const title = document.createElement('td');
    if (c.role === 'owner' || c.role === 'editor' || c.role === 'admin') {
      // Its page: deploy, share, versions, files, key.
      const open = document.createElement('a');
      open.href = `#/canvas/${encodeURIComponent(c.id)}`;
      open.className = 'canvas-link';
      open.textContent = c.title;
      title.append(open);
    } else title.textContent = c.title;
    const address = document.createElement('td');
    const link = document.createElement('a');
    link.href = c.url;
    link.textContent = c.url;
    address.append(link);
    const role = document.createElement('td');
    role.textContent = c.role || '';
    const status = document.createElement('td');
    status.textContent = easelWords.state(c);
    if (c.authored) {
      // Published by a canvas's page (authoring): say which app, and whether it was taken back.
      const from = document.createElement('div');
      from.className = 'authored';
      from.textContent = `Published by a page${c.authored.sourceApp ? ` (${c.authored.sourceApp})` : ''}${c.authored.revokedAt ? ' · revoked' : ''}`;
      status.append(from);
    }
    const spend = document.createElement('td');
    spend.className = 'ai-spend';
    const actions = document.createElement('td');
    if (c.role === 'owner' || c.role === 'editor' || c.role === 'admin') {
      const guests = document.createElement('button');
      guests.type = 'button';
      guests.className = 'guest-links';
      guests.textContent = 'Guest links';
      guests.addEventListener('click', () => openGuests(c));
      actions.append(guests);
      if (c.authored && !c.authored.revokedAt) actions.append(revokeButton(c));
    }
    const shared = document.createElement('td');
    shared.textContent = easelWords.sharedWith(c);
    row.append(title, address, role, status, shared);
    easelUi.whenCell(row, c.lastDeployAt).dataset.column = 'last-deploy';
    row.append(spend, actions);
    tbody.append(row);
    // Owners, editors and admins see the canvas's AI budget; viewers are not asked.
    if (c.role !== 'viewer') spends.push(loadCanvasSpend(c.id, spend));
  }
  $('empty').hidden = allCanvases.length > 0;
  $('canvases').hidden = allCanvases.length === 0;
  return Promise.all(spends);
}

function wireCanvasFilter() {
  const form = $('canvas-filter');
  form.addEventListener('submit', (e) => e.preventDefault());
  form.addEventListener('input', () => void renderShown());
  form.addEventListener('change', () => void renderShown());
}

/** Takes back a canvas a page published: it stops serving and stays listed as revoked. */
function revokeButton(c) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'revoke';
  button.textContent = 'Revoke';
  button.addEventListener('click', async () => {
    if (!confirm(`Stop serving "${c.title}"? A new publish from its page shares it again.`)) return;
    const res = await api('POST', `/api/canvases/${encodeURIComponent(c.id)}/revoke`);
    if (res.status !== 200) {
      notice(`Could not revoke: ${problem(res)}`);
      return;
    }
    notice(`"${c.title}" no longer serves.`);
    await loadCanvases();
  });
  return button;
}

async function loadCanvases() {
  const res = await api('GET', '/api/canvases');
  if (res.status !== 200) {
    notice(`Could not list canvases: ${problem(res)}`);
    return;
  }
  $('list').hidden = false;
  await renderCanvases(res.data.canvases || []);
  // The list and its spend figures are complete (tests wait on this marker).
  $('canvases').dataset.ready = 'true';
}

const usd = (n) => `$${Number(n).toFixed(n > 0 && n < 0.01 ? 4 : 2)}`;

async function loadCanvasSpend(id, cell) {
  const res = await api('GET', `/api/canvases/${encodeURIComponent(id)}/ai-usage`);
  if (res.status !== 200) return;
  const b = res.data.budget;
  cell.textContent = `${usd(b.spentUsd)} of ${usd(b.capUsd)}`;
  cell.title = `${res.data.totals.calls} AI calls in ${b.month}`;
}

const { cell, linkCell } = easelUi;

/** Instance admins: this month's AI spend by canvas, person and model. */
async function loadInstanceSpend() {
  const res = await api('GET', '/api/admin/ai-usage');
  if (res.status !== 200) return;
  const r = res.data;
  $('ai-total').textContent =
    `${usd(r.totals.costUsd)} in ${r.totals.calls} calls from ${r.from} to ${r.to}; caps ${usd(r.caps.userDailyUsd)} per person per day, ${usd(r.caps.canvasMonthlyUsd)} per canvas per month.`;
  const tbody = $('ai-breakdown').querySelector('tbody');
  tbody.replaceChildren();
  const rows = [
    ...(r.byCanvas || []).map((x) => ['canvas', x.title || x.slug || x.canvasId, x]),
    ...r.byUser.map((x) => [x.actorKind === 'guest' ? 'guest' : 'person', x.name || x.email || x.actorId, x]),
    ...r.byModel.map((x) => ['model', x.model, x]),
  ];
  for (const [kind, name, x] of rows) {
    const row = document.createElement('tr');
    cell(row, kind);
    cell(row, name);
    cell(row, String(x.calls));
    cell(row, usd(x.costUsd));
    tbody.append(row);
  }
  $('ai-breakdown').hidden = rows.length === 0;
  $('ai').hidden = false;
}

/** The canvas whose guest links are shown. */
let guestCanvas = null;

/**
 * Opens the guest links panel right after `near` (the canvas page's Sharing
 * section, or the list), where the person is, and moves focus to its heading.
 */
async function openGuests(canvas, near = $('list')) {
  guestCanvas = canvas;
  $('guests-title').textContent = canvas.title;
  $('guest-created').hidden = true;
  $('guest-emailed').hidden = true;
  $('guest-copied').textContent = '';
  near.after($('guests'));
  $('guests').hidden = false;
  $('guests-heading').focus();
  $('guests').scrollIntoView({ block: 'nearest' });
  // Where email matters: without it the address field is off and says why.
  const prefs = await api('GET', '/api/me/notifications');
  const off = prefs.status === 200 && prefs.data.emailEnabled === false;
  $('guest-email-off').hidden = !off;
  $('guest-form').elements.namedItem('email').disabled = off;
  await loadGuests();
}

async function loadGuests() {
  const res = await api('GET', `/api/canvases/${encodeURIComponent(guestCanvas.id)}/guest-invites`);
  if (res.status !== 200) {
    notice(`Could not list guest links: ${problem(res)}`);
    return;
  }
  const tbody = $('guest-list').querySelector('tbody');
  tbody.replaceChildren();
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
        const done = await api(
          'DELETE',
          `/api/canvases/${encodeURIComponent(guestCanvas.id)}/guest-invites/${encodeURIComponent(invite.inviteId)}`,
        );
        if (done.status !== 200) notice(`Could not revoke the link: ${problem(done)}`);
        await loadGuests();
      });
      actions.append(revoke);
    }
    row.append(actions);
    tbody.append(row);
  }
  $('guests').dataset.loaded = String(Date.now());
}

function wireGuestForm() {
  $('copy-guest-url').addEventListener('click', async () => {
    await navigator.clipboard?.writeText($('guest-url').textContent);
    $('guest-copied').textContent = 'Copied.';
  });
  $('guest-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = form.elements.namedItem('name').value.trim();
    const days = Number(form.elements.namedItem('days').value);
    const email = form.elements.namedItem('email').disabled ? '' : form.elements.namedItem('email').value.trim();
    const res = await api('POST', `/api/canvases/${encodeURIComponent(guestCanvas.id)}/guest-invites`, {
      ...(name ? { name } : {}),
      expiresInDays: days,
      ...(email ? { email } : {}),
    });
    if (res.status !== 201) {
      notice(`Could not create the link: ${problem(res)}`);
      return;
    }
    notice('');
    $('guest-url').textContent = res.data.url;
    $('guest-created').hidden = false;
    $('guest-emailed').textContent = res.data.emailed ? `Emailed to ${email}.` : email ? 'Not emailed: this instance sends no email.' : '';
    $('guest-emailed').hidden = !email;
    form.elements.namedItem('email').value = '';
    await loadGuests();
  });
}

/** The gallery: what others listed that this person may open; templates become canvases of their own. */
async function loadGallery() {
  const q = $('gallery-search').q.value.trim();
  const res = await api('GET', `/api/gallery?q=${encodeURIComponent(q)}`);
  if (res.status !== 200) return;
  $('gallery').hidden = false;
  const tbody = $('gallery-list').querySelector('tbody');
  tbody.replaceChildren();
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
        const made = await api('POST', `/api/gallery/${encodeURIComponent(c.id)}/use`, {});
        if (made.status !== 201) {
          $('gallery-error').textContent = problem(made);
          $('gallery-error').hidden = false;
          return;
        }
        $('gallery-error').hidden = true;
        const { apiKey, ...canvas } = made.data;
        showCreated(canvas, apiKey);
        notice(`"${canvas.title}" is yours now, published at ${canvas.url}.`);
        await loadCanvases();
      });
      actions.append(use);
    }
    row.append(actions);
    tbody.append(row);
  }
  $('gallery-empty').hidden = res.data.canvases.length > 0;
  $('gallery-list').hidden = res.data.canvases.length === 0;
  $('gallery-list').dataset.ready = q;
}

function wireGallery() {
  $('gallery-search').addEventListener('submit', (e) => {
    e.preventDefault();
    void loadGallery();
  });
}

function showCreated(canvas, apiKey) {
  $('created-title').textContent = canvas.title;
  $('created-key').textContent = apiKey;
  const deploy = new URL(`/v1/canvases/${encodeURIComponent(canvas.id)}/deploy`, location.origin).href;
  $('created-curl').textContent = `curl -X PUT --data-binary @site.zip \\\n  -H "Authorization: Bearer ${apiKey}" \\\n  ${deploy}`;
  $('created').hidden = false;
}

function wireCreateForm() {
  $('copy-key').addEventListener('click', () => navigator.clipboard?.writeText($('created-key').textContent));
  $('create-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    // form.title would be the form's own title attribute: go through elements.
    const title = form.elements.namedItem('title').value.trim();
    const slug = form.elements.namedItem('slug').value.trim();
    const res = await api('POST', '/api/canvases', slug ? { title, slug } : { title });
    if (res.status !== 201) {
      notice(`Could not create the canvas: ${problem(res)}`);
      return;
    }
    notice('');
    const { apiKey, ...canvas } = res.data;
    form.reset();
    $('created').hidden = true;
    // Its page opens on deploying the first version (a drop zone first), with the key for CI there once.
    easelCanvasWelcome.created(canvas, apiKey);
    await loadCanvases();
    location.hash = `#/canvas/${encodeURIComponent(canvas.id)}`;
  });
  // The empty states' next step: the create form, ready to type.
  for (const start of document.querySelectorAll('.start-create')) {
    start.addEventListener('click', () => {
      const title = $('create-form').elements.namedItem('title');
      title.scrollIntoView({ block: 'center' });
      title.focus();
    });
  }
}

async function start() {
  const me = await api('GET', '/api/me');
  if (me.status === 401) {
    showSignedOut();
    return;
  }
  if (me.status !== 200) {
    $('who').textContent = '';
    notice(`Could not load your account: ${problem(me)}`);
    return;
  }
  signedIn = true;
  showSignedIn(me.data);
  $('create').hidden = false;
  wireCreateForm();
  wireCanvasFilter();
  wireGuestForm();
  await loadCanvases();
  await startTokens({ api, problem });
  await startNotifications({ api, problem });
  if (me.data.isAdmin) await loadInstanceSpend();
  easelCanvasPage.start({ api, notice, problem, cell, loadCanvases, openGuests });
  wireGallery();
  await loadGallery();
  if (me.data.isAdmin) easelAdmin.start({ api, problem, cell });
  window.addEventListener('hashchange', () => {
    // The guest links panel belongs to where it was opened: another view closes it (not the first view, which a
    // quick click may already have opened it on).
    $('guests').hidden = true;
    void route();
  });
  await route();
  // Everything the first view asked for has answered (tests wait on this).
  document.body.dataset.loaded = 'true';
}

/** The editor's script (CodeMirror, bundled at build time) is loaded the first time someone edits. */
let editorScript = null;
function loadEditor() {
  editorScript ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = '/assets/editor.js';
    script.onload = () => resolve(window.easelEditor);
    script.onerror = () => {
      editorScript = null;
      reject(new Error('the editor could not be loaded'));
    };
    document.head.append(script);
  });
  return editorScript;
}

/** `#/canvas/<id>` is a canvas's page (`/data`: at its Data section, as digest emails link), `#/canvas/<id>/edit` its editor, `#/admin` the administration (admins); anything else the list. */
async function route() {
  const m = /^#\/canvas\/([A-Za-z0-9]+)(\/edit|\/data)?$/.exec(location.hash);
  const editing = Boolean(m && m[2] === '/edit');
  const admin = location.hash === '#/admin' && Boolean(easelAdmin.started);
  document.body.dataset.view = editing ? 'editor' : m ? 'canvas' : admin ? 'admin' : 'home';
  $('canvas-page').hidden = !m || editing;
  $('editor-page').hidden = !editing;
  $('admin-page').hidden = !admin;
  // Leaving the editor keeps what was typed: it is saved to the draft first.
  if (!editing && window.easelEditor) await window.easelEditor.close();
  if (editing) {
    easelCanvasPage.close();
    const editor = await loadEditor().catch((err) => notice(`Something went wrong: ${err.message}`));
    if (editor) await editor.open(m[1], { api, problem });
  } else if (m) {
    await easelCanvasPage.open(m[1]);
    if (m[2] === '/data') $('cp-data').scrollIntoView();
  } else easelCanvasPage.close();
  if (admin) await easelAdmin.open();
}

// Unsaved editor changes are not lost to a closed tab or a link elsewhere.
window.addEventListener('beforeunload', (event) => {
  if (window.easelEditor && window.easelEditor.hasUnsavedChanges()) event.preventDefault();
});

start().catch((err) => notice(`Something went wrong: ${err.message}`));

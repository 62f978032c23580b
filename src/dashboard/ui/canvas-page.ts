// One canvas's page in the dashboard (#/canvas/<id>): its address, name and
// slug, deploys from a dropped folder or ZIP (only the files the canvas lacks
// are sent), sharing (the access ladder, password, expiry, the list),
// versions with rollback and unpublish, the live files, and a new deploy key.
// Every server string is set as text, never as HTML.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelCanvasAccess } from './canvas-access.ts';
import { easelCanvasDanger } from './canvas-danger.ts';
import { easelCanvasData } from './canvas-data.ts';
import { easelCanvasOwner } from './canvas-owner.ts';
import { easelCanvasWelcome } from './canvas-welcome.ts';
import { easelPolicyForm } from './policy-form.ts';
import { easelPolicyMisses } from './policy-misses.ts';
import { easelSectionBar } from './section-bar.ts';
import { easelSubmissionMail } from './canvas-submission-mail.ts';
import { easelUi } from './ui.ts';
import { easelWebhooks } from './webhooks.ts';
import { easelWords } from './status-words.ts';

const $ = (id) => document.getElementById(id);
let deps = null;
let canvas = null;
/** userId → name (or email) of everyone on the canvas's list. */
let people = new Map();

const enc = encodeURIComponent;
const path = (suffix = '') => `/api/canvases/${enc(canvas.id)}${suffix}`;

const { button, linkCell } = easelUi;
const showError = (id, res) => easelUi.showError(id, res, deps.problem);

const { bytes } = easelUi;

const when = (ms) => new Date(ms).toLocaleString();

async function open(id) {
  const res = await deps.api('GET', `/api/canvases/${enc(id)}`);
  if (res.status !== 200) {
    deps.notice(`Could not open the canvas: ${deps.problem(res)}`);
    location.hash = '#/';
    return;
  }
  if (canvas?.id !== res.data.id) {
    // Another canvas: nothing of the last one's deploy or key stays on screen.
    for (const id of ['cp-deploy-error', 'cp-key']) $(id).hidden = true;
    $('cp-deploy-status').textContent = '';
    $('cp-warnings').replaceChildren();
  }
  canvas = res.data;
  render();
  easelCanvasOwner.show(canvas);
  easelCanvasDanger.show(canvas);
  easelCanvasWelcome.show(canvas);
  loadPolicy();
  // Versions name who published them: the list's names come first.
  await Promise.all([
    loadMembers().then(loadVersions),
    loadFiles(),
    loadSwitches(),
    loadGallery(),
    loadUsage(),
    easelCanvasData.load(deps.api, path()),
    easelWebhooks.load(deps.api, path(), deps.problem),
    easelSubmissionMail.load(deps.api, canvas),
  ]);
  // Everything on the page is loaded (tests wait on this marker).
  easelSectionBar.build({
    nav: $('cp-nav'),
    page: $('canvas-page'),
    order: ['Overview', 'Deploys & versions', 'Sharing', 'Data', 'Runtime', 'Settings', 'Danger zone'],
    top: $('cp-title'),
    live: canvas.url,
  });
  $('canvas-page').dataset.ready = canvas.id;
}

function render() {
  $('cp-title').textContent = canvas.title;
  $('cp-id').textContent = canvas.id;
  const url = $('cp-url');
  url.href = canvas.url;
  url.textContent = canvas.url;
  $('cp-edit').href = `#/canvas/${enc(canvas.id)}/edit`;
  $('cp-state').textContent = ` · ${easelWords.summary(canvas)}`;
  const form = $('cp-rename');
  form.title.value = canvas.title;
  form.slug.value = canvas.slug;
  for (const radio of document.querySelectorAll('#cp-access input[name="access"]')) radio.checked = radio.value === canvas.accessMode;
  $('cp-password-state').textContent = canvas.hasPassword ? 'A password is set.' : 'No password.';
  $('cp-expiry-state').textContent = canvas.expiresAt ? `Shared until ${when(canvas.expiresAt)}.` : 'No expiry.';
  $('cp-unpublish').disabled = canvas.publicationState !== 'published';
  easelCanvasAccess.markRuntime(canvas);
}

async function patch(body, errorId) {
  const res = await deps.api('PATCH', path(), body);
  if (res.status !== 200) {
    showError(errorId, res);
    return false;
  }
  showError(errorId, null);
  canvas = res.data;
  render();
  return true;
}

async function loadMembers() {
  const res = await deps.api('GET', path('/members'));
  const tbody = $('cp-members').querySelector('tbody');
  tbody.replaceChildren();
  if (res.status !== 200) return showError('cp-members-error', res);
  people = new Map(res.data.members.map((m) => [m.userId, m.name || m.email]));
  for (const m of res.data.members) {
    const row = document.createElement('tr');
    deps.cell(row, m.name && m.name !== m.email ? `${m.name} <${m.email}>` : m.email);
    const role = document.createElement('td');
    const actions = document.createElement('td');
    if (m.role === 'owner') role.textContent = 'owner';
    else {
      const select = document.createElement('select');
      select.setAttribute('aria-label', `Role of ${m.email}`);
      for (const r of ['viewer', 'editor']) {
        const o = document.createElement('option');
        o.value = r;
        o.textContent = r;
        o.selected = r === m.role;
        select.append(o);
      }
      select.addEventListener('change', () => putMember(m.email, select.value));
      role.append(select);
      actions.append(
        button('Remove', async () => {
          if (!confirm(`Take ${m.email} off the list?`)) return;
          const gone = await deps.api('DELETE', path(`/members/${enc(m.userId)}`));
          if (gone.status !== 200) return showError('cp-members-error', gone);
          showError('cp-members-error', null);
          await loadMembers();
        }),
      );
    }
    row.append(role, actions);
    tbody.append(row);
  }
}

async function putMember(email, role) {
  const res = await deps.api('PUT', path('/members'), { email, role });
  if (res.status !== 200) return showError('cp-members-error', res);
  showError('cp-members-error', null);
  await loadMembers();
}

async function loadVersions() {
  const res = await deps.api('GET', path('/versions'));
  const tbody = $('cp-versions').querySelector('tbody');
  tbody.replaceChildren();
  if (res.status !== 200) return showError('cp-versions-error', res);
  for (const v of res.data.versions) {
    const row = document.createElement('tr');
    deps.cell(row, `${v.number}${v.current ? ' (live)' : ''}${v.preview ? ' · preview' : ''}`);
    deps.cell(row, when(v.createdAt));
    deps.cell(row, v.source === 'upload' ? 'staged upload' : v.source === 'api' ? 'ZIP' : v.source);
    // The owner for deploy-key writes (spec); the person for deploys from the dashboard, the CLI or the editor.
    deps.cell(row, people.get(v.createdBy) || 'someone not on the list (an administrator?)');
    deps.cell(row, v.releaseId || '');
    deps.cell(row, `${easelWords.files(v.fileCount)}, ${bytes(v.totalBytes)}`);
    const actions = document.createElement('td');
    // Every kept version has its own address, with the canvas's access (deploy previews).
    if (v.status === 'ready') {
      const open = document.createElement('a');
      open.href = v.previewUrl;
      open.target = '_blank';
      open.rel = 'noopener';
      open.textContent = 'Open';
      actions.append(open, ' ');
    }
    if (!v.current && v.status === 'ready') {
      actions.append(
        button('Make live', async () => {
          if (!confirm(`Make version ${v.number} live again? Visitors see it at once.`)) return;
          const done = await deps.api('POST', path('/rollback'), { version: v.number });
          if (done.status !== 200) return showError('cp-versions-error', done);
          showError('cp-versions-error', null);
          await refresh();
        }),
      );
    }
    row.append(actions);
    if (v.current) row.className = 'live';
    tbody.append(row);
  }
}

async function loadFiles() {
  const tbody = $('cp-files').querySelector('tbody');
  tbody.replaceChildren();
  if (canvas.publicationState !== 'published') return;
  const res = await deps.api('GET', path('/files'));
  if (res.status !== 200) return;
  for (const f of res.data.files) {
    const row = document.createElement('tr');
    // Served sandboxed (CSP sandbox): a file of the canvas cannot act as the dashboard.
    linkCell(row, path(`/files?path=${enc(f.path)}`), f.path, true);
    deps.cell(row, bytes(f.size));
    deps.cell(row, f.mime);
    const hash = document.createElement('td');
    const code = document.createElement('code');
    code.textContent = f.hash.slice(0, 12);
    code.title = f.hash;
    hash.append(code);
    row.append(hash);
    tbody.append(row);
  }
}

async function refresh() {
  await open(canvas.id);
  await deps.loadCanvases();
}

/** What the canvas uses against its quotas: KV keys, file bytes, this month's AI spend. */
async function loadUsage() {
  const [usage, ai] = await Promise.all([deps.api('GET', path('/usage')), deps.api('GET', path('/ai-usage'))]);
  const parts = [];
  if (usage.status === 200) {
    const { kv, files } = usage.data;
    parts.push(
      `Key-value: ${kv.sharedKeys.toLocaleString()} of ${kv.sharedKeysMax.toLocaleString()} shared keys (and ${kv.userKeysMaxPerPerson.toLocaleString()} per person in their own)`,
    );
    parts.push(`Files: ${bytes(files.bytes)} of ${bytes(files.bytesMax)}`);
  }
  if (ai.status === 200) {
    const b = ai.data.budget;
    parts.push(`AI in ${b.month}: $${Number(b.spentUsd).toFixed(2)} of $${Number(b.capUsd).toFixed(2)}`);
  }
  $('cp-usage').textContent = parts.join(' · ');
}

async function loadGallery() {
  const res = await deps.api('GET', path('/gallery'));
  if (res.status !== 200) return showError('cp-gallery-error', res);
  const form = $('cp-gallery');
  form.listed.checked = res.data.listed;
  form.templatable.checked = res.data.templatable;
}

async function saveGallery(e) {
  const res = await deps.api('PUT', path('/gallery'), { [e.target.name]: e.target.checked });
  if (res.status !== 200) {
    showError('cp-gallery-error', res);
    e.target.checked = !e.target.checked;
    return;
  }
  showError('cp-gallery-error', null);
  $('cp-gallery').dataset.saved = `${res.data.listed} ${res.data.templatable}`;
}

// Runtime settings ---------------------------------------------------------

const SWITCHES = [
  ['backend', 'Backend (everything below)'],
  ['kv', 'Key-value storage'],
  ['files', 'Files'],
  ['ai', 'AI'],
  ['realtime', 'Realtime'],
  ['authoring', 'Publishing canvases from its pages'],
];

function why(state) {
  if (!state) return '';
  if (state.effective) return 'in effect';
  if (state.reason === 'backend_off') return 'off: the backend is off';
  if (state.reason === 'feature_off') return 'off';
  return `off: ${state.hint}`;
}

async function loadSwitches() {
  const res = await deps.api('GET', path('/capabilities'));
  const list = $('cp-switches');
  list.replaceChildren();
  if (res.status !== 200) return showError('cp-runtime-error', res);
  const { switches, effective } = res.data;
  presets = res.data.presets;
  renderPolicyForm();
  easelPolicyMisses.show(res.data.unconfigured || []);
  for (const [name, label] of SWITCHES) {
    const li = document.createElement('li');
    li.dataset.capability = name;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = switches[name];
    box.id = `cp-switch-${name}`;
    box.addEventListener('change', async () => {
      const done = await deps.api('PATCH', path('/capabilities'), { [name]: box.checked });
      if (done.status !== 200) {
        showError('cp-runtime-error', done);
        box.checked = !box.checked;
        return;
      }
      showError('cp-runtime-error', null);
      canvas = done.data;
      await loadSwitches();
    });
    const text = document.createElement('label');
    text.htmlFor = box.id;
    text.textContent = label;
    const state = document.createElement('span');
    state.className = 'why';
    state.textContent = name === 'backend' ? '' : why(effective[name]);
    li.append(box, text, state);
    list.append(li);
  }
  const connections = document.createElement('li');
  connections.dataset.capability = 'connections';
  connections.textContent = 'Connections';
  const state = document.createElement('span');
  state.className = 'why';
  state.textContent = why(effective.connections);
  connections.append(state);
  list.append(connections);
  easelCanvasAccess.markRuntime(canvas);
  const form = $('cp-audiences');
  form.aiAudience.value = canvas.aiAudience;
  form.connectionsAudience.value = canvas.connectionsAudience;
}

/** The policy being edited (the form and the JSON show the same document) and what each preset grants. */
let policy = { doc: {} };
let presets = null;

function policyJson() {
  $('cp-policy').value = Object.keys(policy.doc).length ? JSON.stringify(policy.doc, null, 2) : '';
}

function renderPolicyForm() {
  easelPolicyForm.render($('cp-policy-form'), policy, presets, policyJson);
}

/**
 * JSON typed by hand becomes the form's document as soon as it parses as an
 * object (while typing, so the form never jumps under a click); saving
 * reports what does not parse.
 */
function policyFromJson() {
  const text = $('cp-policy').value.trim();
  let doc;
  try {
    doc = text ? JSON.parse(text) : {};
  } catch {
    return;
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return;
  policy = { doc };
  renderPolicyForm();
}

function loadPolicy() {
  policy = { doc: structuredClone(canvas.runtimePolicy || {}) };
  policyJson();
  renderPolicyForm();
  $('cp-policy').dataset.revision = canvas.runtimePolicyRevision ?? '';
  $('cp-policy-revision').textContent = canvas.runtimePolicyRevision ? `revision ${canvas.runtimePolicyRevision}` : 'no policy saved yet';
  $('cp-policy-conflict').hidden = true;
  showError('cp-policy-error', null);
}

async function savePolicy() {
  const text = $('cp-policy').value.trim();
  let doc = null;
  if (text) {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      return showError('cp-policy-error', { status: 400, data: { message: `not JSON: ${err.message}` } });
    }
  }
  const expected = $('cp-policy').dataset.revision || null;
  const res = await deps.api('PATCH', path('/capabilities'), { expectedRuntimePolicy: expected, runtimePolicy: doc });
  if (res.status === 409 && res.data?.code === 'POLICY_CONFLICT') {
    // Show the other change and let the person take it; their own edits stay in the editor until they do.
    const fresh = await deps.api('GET', path());
    $('cp-policy-theirs').textContent = fresh.status === 200 ? JSON.stringify(fresh.data.runtimePolicy, null, 2) : '';
    $('cp-policy-conflict').hidden = false;
    if (fresh.status === 200) canvas = fresh.data;
    return;
  }
  if (res.status !== 200) return showError('cp-policy-error', res);
  canvas = res.data;
  loadPolicy();
  $('cp-policy-revision').textContent += ' (saved)';
}

// Deploys ------------------------------------------------------------------

async function sha256(blob) {
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function progress(done, total, text) {
  const bar = $('cp-progress');
  bar.hidden = false;
  bar.max = Math.max(total, 1);
  bar.value = done;
  $('cp-deploy-status').textContent = text;
}

/** What a conflict or refusal means, in words, for the person who pressed the button. */
function deployProblem(res) {
  const d = res.data || {};
  if (d.code === 'PUBLICATION_CHANGED' || d.code === 'RELEASE_NOT_CURRENT')
    return `Someone published this canvas meanwhile (now version ${d.current?.version ?? '?'}): nothing was changed. Reload and deploy again.`;
  return deps.problem(res);
}

function finished(res) {
  $('cp-progress').hidden = true;
  const warnings = $('cp-warnings');
  warnings.replaceChildren();
  if (res.status !== 200) {
    $('cp-deploy-status').textContent = '';
    const el = $('cp-deploy-error');
    el.textContent = `Not published: ${deployProblem(res)}`;
    el.hidden = false;
    return;
  }
  $('cp-deploy-error').hidden = true;
  const r = res.data;
  $('cp-deploy-status').textContent =
    r.outcome === 'already_current'
      ? `Already live: version ${r.version}.`
      : `Published version ${r.version}: ${easelWords.files(r.fileCount)}, ${bytes(r.totalBytes)}.`;
  for (const w of r.warnings || []) {
    const li = document.createElement('li');
    li.textContent = w;
    warnings.append(li);
  }
}

/** A folder: hash every file here, send only what the canvas lacks, then publish. */
async function deployFiles(files) {
  const entries = files.filter((f) => !f.path.split('/').some((part) => part.startsWith('.')));
  if (entries.length === 0)
    return finished({ status: 400, data: { message: 'the folder holds no files to deploy (dotfiles are skipped)' } });
  const total = entries.reduce((n, f) => n + f.file.size, 0);
  const manifest = [];
  let hashed = 0;
  for (const f of entries) {
    f.hash = await sha256(f.file);
    manifest.push({ path: f.path, hash: f.hash, size: f.file.size });
    hashed += f.file.size;
    progress(hashed, total * 2, `Reading ${f.path}`);
  }
  const begun = await deps.api('POST', path('/uploads'), { manifest, expectedPublicationToken: canvas.publicationToken });
  if (begun.status !== 200) return finished(begun);
  if (begun.data.outcome) return finished(begun);
  const missing = new Set(begun.data.missingHashes);
  const toSend = entries.filter((f) => missing.delete(f.hash));
  const sendTotal = toSend.reduce((n, f) => n + f.file.size, 0);
  let sent = 0;
  for (const f of toSend) {
    progress(total + (sent / Math.max(sendTotal, 1)) * total, total * 2, `Sending ${f.path}`);
    const res = await fetch(path(`/uploads/${enc(begun.data.uploadId)}/blobs/${f.hash}`), {
      method: 'PUT',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/octet-stream' },
      body: f.file,
    });
    if (res.status !== 204) return finished({ status: res.status, data: await res.json().catch(() => null) });
    sent += f.file.size;
  }
  progress(total * 2, total * 2, 'Publishing…');
  finished(await deps.api('POST', path(`/uploads/${enc(begun.data.uploadId)}/finalize`), {}));
  await refresh();
}

/** A ZIP: sent as it is, with upload progress. */
function deployZip(file) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', path(`/deploy?expectedPublicationToken=${enc(canvas.publicationToken)}`));
    xhr.setRequestHeader('content-type', 'application/zip');
    xhr.upload.onprogress = (e) => progress(e.loaded, e.total || file.size, `Sending ${file.name}`);
    xhr.onload = async () => {
      let data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        data = null;
      }
      finished({ status: xhr.status, data });
      await refresh();
      resolve();
    };
    xhr.onerror = () => {
      finished({ status: 0, data: { message: 'the upload did not reach the server' } });
      resolve();
    };
    xhr.send(file);
  });
}

/** The files a drop holds, with their paths inside the dropped folder (the folder itself is not part of them). */
async function droppedFiles(items) {
  const out = [];
  const walk = (entry, prefix) =>
    new Promise((resolve) => {
      if (entry.isFile) entry.file((file) => (out.push({ path: prefix + file.name, file }), resolve()), resolve);
      else if (entry.isDirectory) {
        const reader = entry.createReader();
        const all = [];
        const next = () =>
          reader.readEntries(async (batch) => {
            if (batch.length === 0) {
              for (const child of all) await walk(child, `${prefix}${entry.name}/`);
              resolve();
            } else {
              all.push(...batch);
              next();
            }
          }, resolve);
        next();
      } else resolve();
    });
  const entries = [...items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
  for (const entry of entries) await walk(entry, '');
  // One dropped folder: its contents are the site.
  if (entries.length === 1 && entries[0].isDirectory) {
    const strip = `${entries[0].name}/`;
    for (const f of out) f.path = f.path.slice(strip.length);
  }
  return out;
}

function wireDeploys() {
  const drop = $('cp-drop');
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    const items = e.dataTransfer.items;
    const single = e.dataTransfer.files.length === 1 ? e.dataTransfer.files[0] : null;
    if (single && /\.zip$/i.test(single.name)) return deployZip(single);
    await deployFiles(await droppedFiles(items));
  });
  $('cp-folder').addEventListener('change', async (e) => {
    const files = [...e.target.files].map((file) => ({ path: file.webkitRelativePath.split('/').slice(1).join('/') || file.name, file }));
    e.target.value = '';
    await deployFiles(files);
  });
  $('cp-zip').addEventListener('change', async (e) => {
    const file = e.target.files[0];
    e.target.value = '';
    if (file) await deployZip(file);
  });
}

// Wiring -------------------------------------------------------------------

function wire() {
  $('cp-copy-url').addEventListener('click', () => navigator.clipboard?.writeText(canvas.url));
  $('cp-rename').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    const body = {};
    if (form.title.value.trim() !== canvas.title) body.title = form.title.value.trim();
    if (form.slug.value.trim() !== canvas.slug) body.slug = form.slug.value.trim();
    if (Object.keys(body).length === 0) return;
    const oldUrl = canvas.url;
    if (await patch(body, 'cp-rename-error')) {
      if (canvas.url !== oldUrl) deps.notice(`The canvas moved to ${canvas.url}; the old address no longer answers.`);
      await deps.loadCanvases();
    }
  });
  for (const radio of document.querySelectorAll('#cp-access input[name="access"]')) {
    radio.addEventListener('change', async () => {
      // Letting more people in is asked first (canvas-access.js): nothing is sent until confirmed.
      if (!(await easelCanvasAccess.confirm(canvas, radio.value, radio))) return render();
      if (!(await patch({ accessMode: radio.value }, 'cp-access-error'))) render();
    });
  }
  $('cp-password').addEventListener('submit', async (e) => {
    e.preventDefault();
    const password = e.target.password.value;
    if (!password) return;
    if (await patch({ password }, 'cp-password-error')) e.target.reset();
  });
  $('cp-password-clear').addEventListener('click', () => patch({ password: null }, 'cp-password-error'));
  $('cp-expiry').addEventListener('submit', async (e) => {
    e.preventDefault();
    const value = e.target.until.value;
    if (!value) return;
    await patch({ expiresAt: new Date(value).getTime() }, 'cp-expiry-error');
  });
  $('cp-expiry-clear').addEventListener('click', () => patch({ expiresAt: null }, 'cp-expiry-error'));
  $('cp-add-member').addEventListener('submit', async (e) => {
    e.preventDefault();
    const form = e.target;
    await putMember(form.email.value.trim(), form.role.value);
    if ($('cp-members-error').hidden) form.reset();
  });
  // The panel opens here, below the Sharing section, not at the top of the page.
  $('cp-guests').addEventListener('click', () => deps.openGuests(canvas, $('cp-guests').parentElement));
  $('cp-unpublish').addEventListener('click', async () => {
    if (!confirm(`Take "${canvas.title}" offline? Its versions are kept; making one live again brings it back (Restricted).`)) return;
    const res = await deps.api('POST', path('/unpublish'));
    if (res.status !== 200) return showError('cp-versions-error', res);
    showError('cp-versions-error', null);
    await refresh();
  });
  $('cp-regenerate').addEventListener('click', async () => {
    if (!confirm('Make a new deploy key? The current one stops working at once (update your CI).')) return;
    const res = await deps.api('POST', path('/regenerate-key'));
    if (res.status !== 200) return showError('cp-key-error', res);
    showError('cp-key-error', null);
    $('cp-key-value').textContent = res.data.apiKey;
    $('cp-key').hidden = false;
  });
  $('cp-copy-key').addEventListener('click', () => navigator.clipboard?.writeText($('cp-key-value').textContent));
  for (const name of ['aiAudience', 'connectionsAudience']) {
    $('cp-audiences')[name].addEventListener('change', async (e) => {
      const res = await deps.api('PATCH', path('/capabilities'), { [name]: e.target.value });
      if (res.status !== 200) return showError('cp-runtime-error', res);
      showError('cp-runtime-error', null);
      canvas = res.data;
      await loadSwitches();
    });
  }
  $('cp-policy-save').addEventListener('click', savePolicy);
  for (const box of $('cp-gallery').querySelectorAll('input')) box.addEventListener('change', saveGallery);
  $('cp-policy-reload').addEventListener('click', loadPolicy);
  $('cp-policy').addEventListener('input', policyFromJson);
  wireDeploys();
}

export const easelCanvasPage = {
  /** `deps`: the dashboard's one API client and its helpers. */
  start(given) {
    deps = given;
    wire();
    easelCanvasOwner.start({ ...deps, reopen: (id) => open(id) });
    easelCanvasDanger.start({ ...deps, reopen: (id) => open(id) });
    easelSubmissionMail.start();
  },
  open,
  close() {
    canvas = null;
  },
};

// The administration page (#/admin, instance admins): people (search,
// deactivate, who may publish Public links), every canvas (search, disable
// with a reason, enable), instance settings (the AI key write-only), and the
// audit log with filters. Every server string is set as text.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  let deps = null;
  let users = [];
  let auditBefore = null;

  function showError(id, res) {
    const el = $(id);
    el.textContent = res ? deps.problem(res) : '';
    el.hidden = !res;
  }

  function button(text, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.addEventListener('click', onClick);
    return b;
  }

  async function loadUsers() {
    const res = await deps.api('GET', '/api/admin/users');
    if (res.status !== 200) return showError('ad-users-error', res);
    users = res.data.users;
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
  }

  async function patchUser(u, patch) {
    const res = await deps.api('PATCH', `/api/admin/users/${encodeURIComponent(u.id)}`, patch);
    if (res.status !== 200) return showError('ad-users-error', res);
    showError('ad-users-error', null);
    await loadUsers();
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
      const name = document.createElement('td');
      const link = document.createElement('a');
      link.href = c.url;
      link.textContent = c.title;
      name.append(link);
      row.append(name);
      deps.cell(row, c.ownerEmail || '');
      deps.cell(row, c.status === 'disabled' && c.disabledReason ? `disabled: ${c.disabledReason}` : `${c.status} · ${c.publicationState}`);
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

  const NUMBER_SETTINGS = ['aiUserDailyUsd', 'aiCanvasMonthlyUsd', 'filesBytesFile', 'filesBytesCanvas', 'userCanvases'];
  let settings = null;

  async function loadSettings() {
    const res = await deps.api('GET', '/api/admin/settings');
    if (res.status !== 200) return showError('ad-settings-error', res);
    settings = res.data;
    const form = $('ad-settings');
    form.publicLinks.checked = settings.publicLinks;
    for (const name of NUMBER_SETTINGS) form[name].value = settings[name];
    form.aiApiKey.value = '';
    form.aiApiKey.placeholder = settings.aiApiKeySet ? 'a key is set (type to replace)' : 'none set';
  }

  async function saveSettings(e) {
    e.preventDefault();
    const form = e.target;
    const patch = {};
    if (form.publicLinks.checked !== settings.publicLinks) patch.publicLinks = form.publicLinks.checked;
    for (const name of NUMBER_SETTINGS) {
      const value = Number(form[name].value);
      if (form[name].value !== '' && value !== settings[name]) patch[name] = value;
    }
    if (form.aiApiKey.value) patch.aiApiKey = form.aiApiKey.value;
    if (Object.keys(patch).length === 0) return;
    const res = await deps.api('PATCH', '/api/admin/settings', patch);
    if (res.status !== 200) return showError('ad-settings-error', res);
    showError('ad-settings-error', null);
    await loadSettings();
    $('ad-settings-state').textContent = 'Saved.';
  }

  async function loadAudit(more) {
    const form = $('ad-audit-filter');
    const q = new URLSearchParams({ limit: '50' });
    for (const name of ['action', 'canvasId', 'actorId']) if (form[name].value.trim()) q.set(name, form[name].value.trim());
    if (more && auditBefore) q.set('before', String(auditBefore));
    const res = await deps.api('GET', `/api/admin/audit?${q}`);
    const tbody = $('ad-audit').querySelector('tbody');
    if (!more) tbody.replaceChildren();
    if (res.status !== 200) return;
    for (const e of res.data.entries) {
      const row = document.createElement('tr');
      deps.cell(row, new Date(e.at).toLocaleString());
      deps.cell(row, `${e.actorKind}${e.actorId ? ` ${e.actorId}` : ''}`);
      deps.cell(row, e.canvasId || '');
      deps.cell(row, e.action);
      deps.cell(row, e.detail ? JSON.stringify(e.detail) : '');
      tbody.append(row);
    }
    auditBefore = res.data.nextBefore;
    $('ad-audit-more').hidden = res.data.entries.length < 50;
    $('ad-audit').dataset.ready = String(Date.now());
  }

  window.easelAdmin = {
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
    },
    async open() {
      await Promise.all([loadUsers(), loadCanvases(), loadSettings(), loadAudit(false)]);
      $('admin-page').dataset.ready = 'true';
    },
  };
})();

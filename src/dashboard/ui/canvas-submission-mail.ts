// The canvas page's "Email me new submissions" choice (off, at once, or an
// hourly digest), stored per canvas in the owner's preferences
// (PUT /api/me/notifications {submissions: {canvasId: mode}}). Shown to the
// owner only: the mail goes to the owner. canvas-page.js loads it per canvas.
// @ts-nocheck -- moved from plain JS; typed file by file next
export const easelSubmissionMail = (() => {
  const $ = (id) => document.getElementById(id);
  let api = null;
  let canvasId = null;

  async function save() {
    const select = $('cp-submission-mail');
    const res = await api('PUT', '/api/me/notifications', { submissions: { [canvasId]: select.value } });
    const state = $('cp-submission-mail-state');
    if (res.status !== 200) {
      state.textContent = `Not saved: ${res.data?.error?.message || `HTTP ${res.status}`}`;
      return;
    }
    state.textContent = select.value === 'off' ? 'Saved: no email.' : 'Saved.';
  }

  return {
    async load(givenApi, canvas) {
      api = givenApi;
      canvasId = canvas.id;
      const box = $('cp-submission-mail-box');
      box.hidden = canvas.role !== 'owner';
      $('cp-submission-mail-state').textContent = '';
      if (box.hidden) return;
      const res = await api('GET', '/api/me/notifications');
      if (res.status !== 200) return;
      $('cp-submission-mail').value = res.data.submissions?.[canvas.id] || 'off';
      $('cp-submission-mail-off').hidden = res.data.emailEnabled !== false;
    },
    start() {
      $('cp-submission-mail').addEventListener('change', () => void save());
    },
  };
})();

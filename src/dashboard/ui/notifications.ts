// The dashboard's Email section: which notification emails you get
// (GET/PUT /api/me/notifications), each kind a checkbox saved as it changes.
// When the instance sends no email it says so. app.js starts it.
// @ts-nocheck -- moved from plain JS; typed file by file next
export const easelNotifications = {
  start({ api, notice, problem }) {
    const $ = (id) => document.getElementById(id);
    const form = $('notify-form');

    function show(prefs) {
      $('notify-off').hidden = prefs.emailEnabled !== false;
      for (const box of form.querySelectorAll('input[type="checkbox"]')) box.checked = prefs[box.name] !== false;
      form.dataset.ready = String(Date.now());
    }

    form.addEventListener('change', async (event) => {
      const box = event.target;
      const res = await api('PUT', '/api/me/notifications', { [box.name]: box.checked });
      if (res.status !== 200) {
        notice(`Could not save your email choices: ${problem(res)}`);
        box.checked = !box.checked;
        return;
      }
      notice('');
      show(res.data);
    });

    return (async () => {
      const res = await api('GET', '/api/me/notifications');
      if (res.status !== 200) {
        notice(`Could not load your email choices: ${problem(res)}`);
        return;
      }
      show(res.data);
      $('notifications').hidden = false;
    })();
  },
};

// The dashboard's small DOM helpers, shared by its scripts: every server
// string goes in as text (textContent), never as HTML.
// @ts-nocheck -- moved from plain JS; typed file by file next
export const easelUi = {
  /** A byte count for people: 512 B, 3.2 KB, 41.0 MB, 1.5 GB. */
  bytes(n) {
    if (n < 1024) return `${n} B`;
    if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
    if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
    return `${(n / 1024 / 1024 / 1024).toFixed(1)} GB`;
  },
  /** A moment as people say it ("3 hours ago", "yesterday", "12 Mar"), with the exact time for a hover title. */
  when(ms, now = Date.now()) {
    const exact = new Date(ms).toLocaleString();
    const s = Math.round((now - ms) / 1000);
    const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
    let text;
    if (s < 45) text = 'just now';
    else if (s < 3600) text = rtf.format(-Math.round(s / 60), 'minute');
    else if (s < 86400) text = rtf.format(-Math.round(s / 3600), 'hour');
    else if (s < 7 * 86400) text = rtf.format(-Math.round(s / 86400), 'day');
    else
      text = new Date(ms).toLocaleDateString(undefined, { day: 'numeric', month: 'short', year: s > 300 * 86400 ? 'numeric' : undefined });
    return { text, exact };
  },
  /** A table cell holding a moment in words, the exact time on hover (and for screen readers, in a <time>). */
  whenCell(row, ms) {
    const td = document.createElement('td');
    if (ms) {
      const { text, exact } = easelUi.when(ms);
      const time = document.createElement('time');
      time.dateTime = new Date(ms).toISOString();
      time.title = exact;
      time.textContent = text;
      td.append(time);
    }
    row.append(td);
    return td;
  },
  /** A table cell holding `text`. */
  cell(row, text) {
    const td = document.createElement('td');
    td.textContent = text;
    row.append(td);
    return td;
  },
  /** A table cell holding a link; `newTab` opens it beside the dashboard. */
  linkCell(row, href, text, newTab = false) {
    const td = document.createElement('td');
    const a = document.createElement('a');
    a.href = href;
    a.textContent = text;
    if (newTab) {
      a.target = '_blank';
      a.rel = 'noopener';
    }
    td.append(a);
    row.append(td);
    return td;
  },
  /** Opens `dialog` modally (focus stays inside, Escape cancels); resolves with the button's value it closed with, focus back on `from`. */
  ask(dialog, from) {
    dialog.returnValue = '';
    return new Promise((resolve) => {
      dialog.addEventListener(
        'close',
        () => {
          from.focus();
          resolve(dialog.returnValue);
        },
        { once: true },
      );
      dialog.showModal();
    });
  },
  /** A plain button. */
  button(text, onClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = text;
    b.addEventListener('click', onClick);
    return b;
  },
  /** The refusal of `res` in the error line `id` (next to the control that caused it); null clears it. */
  showError(id, res, problem) {
    const el = document.getElementById(id);
    el.textContent = res ? problem(res) : '';
    el.hidden = !res;
  },
};

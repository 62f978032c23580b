// The Data section's browser: one kind of a canvas's data at a time (shared
// keys, a collection, a submissions collection, the files) as a table a page
// at a time from GET …/data/{kind}/items, with a search and "Load more", and
// a Delete per row (DELETE …/items/{item}) after a confirmation naming what
// goes. The server decides what may be read and deleted (the runtime API's
// rules); a refusal is shown as the server words it. Every server string is
// set as text, never as HTML.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelUi } from './ui.ts';

export const easelDataBrowser = (() => {
  const $ = (id) => document.getElementById(id);
  const enc = encodeURIComponent;
  const { bytes, cell, button } = easelUi;
  const PAGE = 50;
  /** Values longer than this show their beginning; the whole opens below it. */
  const SHORT = 80;

  const problem = (res) => {
    const d = res.data || {};
    return d.message || d.code || `HTTP ${res.status}`;
  };

  /** "3 minutes ago", the exact time on hover (and in `datetime`). */
  function timeCell(row, iso) {
    const td = document.createElement('td');
    const time = document.createElement('time');
    const at = new Date(iso);
    time.dateTime = iso;
    time.title = at.toLocaleString();
    time.textContent = relative(at.getTime() - Date.now());
    td.append(time);
    row.append(td);
  }

  const UNITS = [
    ['year', 365 * 24 * 3600e3],
    ['month', 30 * 24 * 3600e3],
    ['day', 24 * 3600e3],
    ['hour', 3600e3],
    ['minute', 60e3],
  ];
  function relative(ms) {
    const words = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
    for (const [unit, size] of UNITS) if (Math.abs(ms) >= size) return words.format(Math.round(ms / size), unit);
    return 'just now';
  }

  /** A JSON value: short ones whole; long ones their beginning, the whole (indented) on expand. */
  function valueCell(row, value) {
    const td = document.createElement('td');
    const text = JSON.stringify(value);
    if (text.length <= SHORT) {
      const code = document.createElement('code');
      code.textContent = text;
      td.append(code);
    } else {
      const details = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = `${text.slice(0, SHORT)}…`;
      const pre = document.createElement('pre');
      pre.textContent = JSON.stringify(value, null, 2);
      details.append(summary, pre);
      td.append(details);
    }
    row.append(td);
  }

  /** A person by name, their email on hover; the id when neither is known. */
  function personCell(row, id, name, email) {
    const td = cell(row, name || email || id);
    td.title = email || id;
  }

  /** What each kind lists: its columns, how a row is drawn, its item's path segment, and the words for a delete. */
  const KINDS = {
    kv: {
      columns: ['Key', 'Value'],
      draw: (row, e) => {
        cell(row, e.key);
        valueCell(row, e.value);
      },
      item: (e) => e.key,
      what: (e) => `the shared key "${e.key}"`,
    },
    collection: {
      columns: ['Record', 'Author', 'Updated', 'Value'],
      draw: (row, r) => {
        cell(row, r.id).title = r.id;
        personCell(row, r.authorId, r.name, r.email);
        timeCell(row, r.updatedAt);
        valueCell(row, r.value);
      },
      item: (r) => r.id,
      what: (r) => `record ${r.id} by ${r.name || r.email || r.authorId}`,
    },
    submissions: {
      columns: ['Person', 'Updated', 'Value'],
      draw: (row, s) => {
        personCell(row, s.userId, s.name, s.email);
        timeCell(row, s.updatedAt);
        valueCell(row, s.value);
      },
      item: (s) => s.userId,
      what: (s) => `the submission of ${s.name || s.email || s.userId}`,
    },
    files: {
      columns: ['Name', 'Size', 'Type', 'Uploaded by', 'Uploaded'],
      draw: (row, f) => {
        cell(row, f.name);
        cell(row, bytes(f.size));
        cell(row, f.mime);
        personCell(row, f.uploadedBy, f.uploaderName, f.uploaderEmail);
        timeCell(row, f.createdAt);
      },
      item: (f) => f.id,
      what: (f) => `the file "${f.name}" (${bytes(f.size)})`,
    },
  };

  /** The browser's state: which list, the search, where the next page starts. */
  let state = null;
  let wired = false;

  function showError(res, doing) {
    const el = $('cp-browse-error');
    el.textContent = res ? `${doing}: ${problem(res)}` : '';
    el.hidden = !res;
  }

  function status() {
    const rows = $('cp-browse-rows').children.length;
    const searched = state.q ? ` holding "${state.q}"` : '';
    $('cp-browse-status').textContent =
      rows === 0
        ? state.q
          ? `Nothing here holds "${state.q}".`
          : `${state.label} holds nothing yet.`
        : `Showing ${rows.toLocaleString()} ${rows === 1 ? 'item' : 'items'}${searched}${state.next === null ? '' : '; there are more'}.`;
    $('cp-browse-more').hidden = state.next === null;
  }

  async function loadPage() {
    const query = new URLSearchParams({ limit: String(PAGE) });
    if (state.q) query.set('q', state.q);
    if (state.next) query.set('after', state.next);
    const mine = state;
    $('cp-browse-more').disabled = true;
    const res = await mine.api('GET', `${mine.path}?${query}`);
    $('cp-browse-more').disabled = false;
    // Another list or search was opened meanwhile: this answer is no longer wanted.
    if (state !== mine) return;
    if (res.status !== 200) {
      showError(res, 'Could not load');
      return;
    }
    showError(null);
    const kind = KINDS[mine.kind];
    for (const entry of res.data.items) {
      const row = document.createElement('tr');
      kind.draw(row, entry);
      const td = document.createElement('td');
      const what = kind.what(entry);
      // The server says what this person may delete (a collection's policy may keep others' records from them).
      if (entry.deletable) {
        const del = button('Delete', () => remove(row, entry, what, del));
        del.setAttribute('aria-label', `Delete ${what}`);
        del.classList.add('danger');
        td.append(del);
      } else {
        td.textContent = 'Only its author may delete it';
        td.className = 'muted';
      }
      row.append(td);
      $('cp-browse-rows').append(row);
    }
    mine.next = res.data.next;
    status();
    $('cp-data-browser').dataset.loaded = String($('cp-browse-rows').children.length);
  }

  async function remove(row, entry, what, del) {
    if (!confirm(`Delete ${what}? It is gone for everyone, as if the canvas had deleted it.`)) return;
    const mine = state;
    del.disabled = true;
    const res = await mine.api('DELETE', `${mine.path}/${enc(KINDS[mine.kind].item(entry))}`);
    del.disabled = false;
    if (res.status !== 200) {
      showError(res, `Could not delete ${what}`);
      return;
    }
    showError(null);
    // Focus stays in the table: on the next row's Delete, else the search box.
    const next = row.nextElementSibling || row.previousElementSibling;
    row.remove();
    (next?.querySelector('button') || $('cp-browse-search').q).focus();
    if (state === mine) status();
    mine.onChange();
  }

  function wire() {
    if (wired) return;
    wired = true;
    $('cp-browse-search').addEventListener('submit', (e) => {
      e.preventDefault();
      if (!state) return;
      state = { ...state, q: e.target.q.value, next: null };
      $('cp-browse-rows').replaceChildren();
      void loadPage();
    });
    $('cp-browse-more').addEventListener('click', () => void loadPage());
    $('cp-browse-close').addEventListener('click', close);
  }

  function close() {
    state = null;
    $('cp-data-browser').hidden = true;
  }

  return {
    /**
     * Opens the list of `kind` (kv, collection, submissions, files) at `path`
     * (…/data/{kind}[/{name}]/items) under the heading `label`; `onChange`
     * runs after a delete (the section's counts).
     */
    open(api, kind, path, label, onChange) {
      wire();
      state = { api, kind, path, label, onChange, q: '', next: null };
      $('cp-browse-title').textContent = label;
      $('cp-browse-search').q.value = '';
      const head = document.createElement('tr');
      for (const name of [...KINDS[kind].columns, '']) {
        const th = document.createElement('th');
        th.scope = 'col';
        th.textContent = name;
        head.append(th);
      }
      $('cp-browse-head').replaceChildren(head);
      $('cp-browse-rows').replaceChildren();
      $('cp-browse-status').textContent = 'Loading…';
      showError(null);
      delete $('cp-data-browser').dataset.loaded;
      $('cp-data-browser').hidden = false;
      $('cp-browse-title').focus();
      return loadPage();
    },
    close,
  };
})();

// The canvas page's Data section: what the canvas holds in words, export
// links per kind and format (the export routes, downloaded with the session),
// a Browse button per kind that opens it in the data browser (data-browser.js),
// and the last 30 days' views and visitors as a small inline SVG chart (no
// inline script or style: the dashboard's CSP allows neither). Every server
// string is set as text.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelDataBrowser } from './data-browser.ts';
import { easelUi } from './ui.ts';

export const easelCanvasData = (() => {
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const FORMATS = ['csv', 'json', 'ndjson'];
  const { bytes, button } = easelUi;
  /** The dashboard's client and the section's API path, for the browser and refreshes after a delete. */
  let current = null;
  const count = (n, one, many) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

  /** `what` and its links, one per format (or the one given), into the list; with `kind`, a Browse button. */
  function exportRow(list, what, href, formats = FORMATS, kind = null) {
    const li = document.createElement('li');
    li.append(`${what}: `);
    formats.forEach((format, i) => {
      const a = document.createElement('a');
      a.href = format ? `${href}${href.includes('?') ? '&' : '?'}format=${format}` : href;
      a.download = '';
      a.dataset.export = `${what}:${format || 'zip'}`;
      a.textContent = format ? format.toUpperCase() : 'ZIP';
      li.append(...(i ? [' · ', a] : [a]));
    });
    if (kind) {
      const { api } = current;
      const browse = button('Browse', () => void easelDataBrowser.open(api, kind, `${href}/items`, what, refresh));
      browse.setAttribute('aria-label', `Browse ${what}`);
      browse.dataset.browse = what;
      li.append(' ', browse);
    }
    list.append(li);
  }

  function renderSummary(base, s) {
    const own =
      s.kv.perViewer.people === 0
        ? 'nobody keeps keys of their own'
        : `${count(s.kv.perViewer.people, 'person keeps', 'people keep')} ${count(s.kv.perViewer.keys, 'key', 'keys')} of their own`;
    const kv = `${count(s.kv.shared.keys, 'shared key', 'shared keys')} (${bytes(s.kv.shared.bytes)}); ${own}`;
    const collections = s.collections.map((c) => `${c.name}: ${count(c.records, 'record', 'records')} (${bytes(c.bytes)})`);
    const submissions = s.submissions.map((c) => `${c.collection}: ${count(c.count, 'submission', 'submissions')}`);
    const lines = [
      `Key-value: ${kv}.`,
      `Collections: ${collections.length ? collections.join(', ') : 'none'}.`,
      `Submissions: ${submissions.length ? submissions.join(', ') : 'none'}.`,
      `Files: ${count(s.files.count, 'file', 'files')} (${bytes(s.files.bytes)}).`,
    ];
    $('cp-data-summary').textContent = lines.join(' ');
    const list = $('cp-data-exports');
    list.replaceChildren();
    exportRow(list, 'Shared keys', `${base}/kv`, FORMATS, 'kv');
    for (const c of s.collections)
      exportRow(list, `Collection ${c.name}`, `${base}/collections/${encodeURIComponent(c.name)}`, FORMATS, 'collection');
    for (const c of s.submissions)
      exportRow(list, `Submissions ${c.collection}`, `${base}/submissions/${encodeURIComponent(c.collection)}`, FORMATS, 'submissions');
    exportRow(list, 'File list', `${base}/files`, FORMATS, 'files');
    exportRow(list, 'Files', `${base}/files.zip`, ['']);
  }

  /** Views as bars, visitors as a darker bar inside each: one per day, scaled to the busiest day. */
  function renderChart(insights) {
    const svg = $('cp-insights-chart');
    svg.replaceChildren();
    const days = insights.days;
    const width = 300;
    const height = 60;
    const step = width / days.length;
    const top = Math.max(1, ...days.map((d) => d.views));
    days.forEach((d, i) => {
      const tip = `${d.date}: ${count(d.views, 'view', 'views')}, ${count(d.visitors, 'visitor', 'visitors')}`;
      for (const [kind, n] of [
        ['views', d.views],
        ['visitors', Math.min(d.visitors, d.views)],
      ]) {
        const h = (n / top) * height;
        const rect = document.createElementNS(SVG, 'rect');
        rect.setAttribute('class', kind);
        rect.setAttribute('x', String(i * step + 0.5));
        rect.setAttribute('y', String(height - h));
        rect.setAttribute('width', String(Math.max(1, step - 1)));
        rect.setAttribute('height', String(h));
        const title = document.createElementNS(SVG, 'title');
        title.textContent = tip;
        rect.append(title);
        svg.append(rect);
      }
    });
    const views = days.reduce((sum, d) => sum + d.views, 0);
    const visitors = days.reduce((sum, d) => sum + d.visitors, 0);
    const busiest = insights.topPaths[0];
    $('cp-insights-caption').textContent =
      `Last ${days.length} days: ${count(views, 'page view', 'page views')}, ${count(visitors, 'signed-in visit-day', 'signed-in visit-days')}` +
      (busiest ? `; most viewed ${busiest.path} (${busiest.views.toLocaleString()})` : '') +
      '.';
  }

  /** The counts again, after the browser deleted something (the browser itself stays open). */
  async function refresh() {
    const { api, base } = current;
    const data = await api('GET', `${base}/data`);
    if (data.status === 200 && current?.base === base) renderSummary(`${base}/data`, data.data);
  }

  return {
    /** Fills the section for the canvas at `base` (/api/canvases/{id}); `api` is the dashboard's client. */
    async load(api, base) {
      current = { api, base };
      easelDataBrowser.close();
      const [data, insights] = await Promise.all([api('GET', `${base}/data`), api('GET', `${base}/insights?days=30`)]);
      $('cp-data').hidden = data.status !== 200;
      if (data.status === 200) renderSummary(`${base}/data`, data.data);
      if (insights.status === 200) renderChart(insights.data);
    },
  };
})();

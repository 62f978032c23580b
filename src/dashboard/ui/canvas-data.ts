// The canvas page's Data section: what the canvas holds in words, export
// links per kind and format (the export routes, downloaded with the session),
// a Browse button per kind that opens it in the data browser (data-browser.ts),
// and the last 30 days' views and visitors as a small inline SVG chart (no
// inline script or style: the dashboard's CSP allows neither). Every server
// string is set as text.
import { byId } from './elements.ts';
import { type Api, button, bytes } from './ui.ts';
import { closeDataBrowser, openDataBrowser, type BrowseKind } from './data-browser.ts';

/** GET …/data: what the canvas holds in counts and bytes (src/canvas-data/store.ts DataSummary, the parts shown). */
interface DataSummary {
  kv: { shared: { keys: number; bytes: number }; perViewer: { keys: number; bytes: number; people: number } };
  collections: Array<{ name: string; records: number; bytes: number }>;
  submissions: Array<{ collection: string; count: number; bytes: number }>;
  files: { count: number; bytes: number };
}

/** GET …/insights: views and visitors per day, and the most viewed paths. */
interface Insights {
  days: Array<{ date: string; views: number; visitors: number }>;
  topPaths: Array<{ path: string; views: number }>;
}

const SVG = 'http://www.w3.org/2000/svg';
const FORMATS = ['csv', 'json', 'ndjson'];
/** The dashboard's client and the section's API path, for the browser and refreshes after a delete. */
let current: { api: Api; base: string } | null = null;
const count = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** `what` and its links, one per format ('' is the one ZIP), into the list; with `kind`, a Browse button. */
function exportRow(list: HTMLElement, what: string, href: string, formats = FORMATS, kind: BrowseKind | null = null): void {
  const li = document.createElement('li');
  const name = document.createElement('span');
  name.className = 'export-name';
  name.textContent = what;
  const links = document.createElement('span');
  formats.forEach((format, i) => {
    const a = document.createElement('a');
    a.href = format ? `${href}${href.includes('?') ? '&' : '?'}format=${format}` : href;
    a.download = '';
    a.dataset.export = `${what}:${format || 'zip'}`;
    a.textContent = format ? format.toUpperCase() : 'ZIP';
    // Read out of its row, "CSV" alone does not say what it downloads.
    a.setAttribute('aria-label', `Download ${what} as ${a.textContent}`);
    links.append(...(i ? [' · ', a] : [a]));
  });
  li.append(name, links);
  if (kind && current) {
    const { api } = current;
    const browse = button('Browse', () => void openDataBrowser(api, kind, `${href}/items`, what, refresh));
    browse.setAttribute('aria-label', `Browse ${what}`);
    browse.dataset.browse = what;
    li.append(browse);
  }
  list.append(li);
}

function renderSummary(base: string, s: DataSummary): void {
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
  byId('cp-data-summary').textContent = lines.join(' ');
  const list = byId('cp-data-exports');
  list.replaceChildren();
  exportRow(list, 'Shared keys', `${base}/kv`, FORMATS, 'kv');
  for (const c of s.collections)
    exportRow(list, `Collection ${c.name}`, `${base}/collections/${encodeURIComponent(c.name)}`, FORMATS, 'collection');
  for (const c of s.submissions)
    exportRow(list, `Submissions ${c.collection}`, `${base}/submissions/${encodeURIComponent(c.collection)}`, FORMATS, 'submissions');
  exportRow(list, 'File list', `${base}/files`, FORMATS, 'files');
  exportRow(list, 'Files', `${base}/files.zip`, ['']);
}

/** "2026-11-29" (a UTC day of the insights) as "Nov 29". */
const dayWords = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** Views as bars, visitors as a darker bar inside each: one per day, scaled to the busiest day. */
function renderChart(insights: Insights): void {
  const svg = byId('cp-insights-chart', SVGSVGElement);
  svg.replaceChildren();
  const days = insights.days;
  const width = 300;
  const height = 60;
  const step = width / days.length;
  const top = Math.max(1, ...days.map((d) => d.views));
  days.forEach((d, i) => {
    const tip = `${dayWords(d.date)}: ${count(d.views, 'view', 'views')}, ${count(d.visitors, 'visitor', 'visitors')}`;
    for (const [kind, n] of [
      ['views', d.views],
      ['visitors', Math.min(d.visitors, d.views)],
    ] as const) {
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
  // Thirty empty bars read as a broken chart: say what would fill it instead.
  svg.toggleAttribute('hidden', views === 0);
  if (views === 0) {
    byId('cp-insights-caption').textContent =
      `No page views in the last ${days.length} days. A view is counted each time someone opens a page of the live version.`;
    return;
  }
  // The bars have no axis: the caption names the days they span and the busiest of them.
  const mostViewed = insights.topPaths[0];
  const peak = days.reduce((a, b) => (b.views > a.views ? b : a));
  byId('cp-insights-caption').textContent =
    `${dayWords(days[0]!.date)} – ${dayWords(days.at(-1)!.date)}: ${count(views, 'page view', 'page views')}; ` +
    `the busiest day ${dayWords(peak.date)} (${count(peak.views, 'view', 'views')}, ${count(peak.visitors, 'signed-in person', 'signed-in people')})` +
    (mostViewed ? `; most viewed ${mostViewed.path} (${mostViewed.views.toLocaleString()})` : '') +
    '.';
}

/** The counts again, after the browser deleted something (the browser itself stays open). */
async function refresh(): Promise<void> {
  if (!current) return;
  const { api, base } = current;
  const data = await api<DataSummary>('GET', `${base}/data`);
  if (data.status === 200 && current?.base === base) renderSummary(`${base}/data`, data.data);
}

/** Fills the section for the canvas at `base` (/api/canvases/{id}); `api` is the dashboard's client. */
export async function loadCanvasData(api: Api, base: string): Promise<void> {
  current = { api, base };
  closeDataBrowser();
  const [data, insights] = await Promise.all([api<DataSummary>('GET', `${base}/data`), api<Insights>('GET', `${base}/insights?days=30`)]);
  byId('cp-data').hidden = data.status !== 200;
  if (data.status === 200) renderSummary(`${base}/data`, data.data);
  if (insights.status === 200) renderChart(insights.data);
}

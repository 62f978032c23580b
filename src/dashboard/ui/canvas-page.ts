// One canvas's page in the dashboard (#/canvas/<id>): its live page in a
// frame (canvas-preview.ts), its address, name and slug, deploys from a
// dropped folder or ZIP (only the files the canvas lacks are sent), sharing
// (the access ladder, password, expiry, the list), versions with rollback
// and unpublish, the live files, and a new deploy key. Every server string
// is set as text, never as HTML.
import { confirmAccess, markRuntime } from './canvas-access.ts';
import { showDanger, startDanger } from './canvas-danger.ts';
import { loadCanvasData } from './canvas-data.ts';
import { type CanvasView, localRefusal, refusalCode } from './canvas-deps.ts';
import { byId, field, find } from './elements.ts';
import { type ApiAnswer, button, bytes, type CanvasPageDeps, clearToasts, linkCell, showError as showErrorIn, toast } from './ui.ts';
import { showOwner, startOwner } from './canvas-owner.ts';
import { showPreview } from './canvas-preview.ts';
import { showWelcome } from './canvas-welcome.ts';
import { renderPolicyForm, type PolicyDoc, type PolicyState, type PresetRights } from './policy-form.ts';
import { showPolicyMisses, type PolicyMiss } from './policy-misses.ts';
import { buildSectionBar } from './section-bar.ts';
import { loadSubmissionMail, startSubmissionMail } from './canvas-submission-mail.ts';
import { loadWebhooks } from './webhooks.ts';
import { files as fileWords, summary, versionSource } from './status-words.ts';
import { nodeProjectFolder } from '../../deploy/project-folder.ts';

/** A person on the canvas's list (GET …/members). */
interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: 'owner' | 'editor' | 'viewer';
}

/** A kept version (GET …/versions; src/deploy/views.ts). */
interface Version {
  number: number;
  source: string;
  status: string;
  createdBy: string;
  createdAt: number;
  fileCount: number;
  totalBytes: number;
  releaseId: string | null;
  current: boolean;
  preview: boolean;
  previewUrl: string;
  /** What its deploy warned of: a deploy from CI or an agent said it only to them. */
  warnings: string[];
}

/** A file of the live version (GET …/files). */
interface LiveFile {
  path: string;
  size: number;
  mime: string;
  hash: string;
}

/** GET …/usage and GET …/ai-usage, the parts shown. */
interface Usage {
  kv: { sharedKeys: number; sharedKeysMax: number; userKeysMaxPerPerson: number };
  files: { bytes: number; bytesMax: number };
}
interface AiUsage {
  budget: { month: string; spentUsd: number | string; capUsd: number | string };
}

interface Gallery {
  listed: boolean;
  templatable: boolean;
}

/** Why a runtime capability is or is not in effect (src/runtime/capabilities.ts CapabilityState). */
type CapabilityState = { effective: true } | { effective: false; reason: string; hint: string };

/** GET …/capabilities. */
interface Capabilities {
  switches: Partial<Record<string, boolean>>;
  effective: Partial<Record<string, CapabilityState>>;
  presets: PresetRights;
  unconfigured?: PolicyMiss[];
}

/** What a deploy answers (src/deploy/publish.ts DeployResult, the parts shown). */
interface DeployResult {
  outcome: 'published' | 'already_current' | 'preview';
  version: number;
  fileCount: number;
  totalBytes: number;
  warnings?: string[];
}

/** POST …/uploads: a session for the blobs the server lacks, or the release is already live (a DeployResult). */
type UploadBegun = { uploadId: string; missingHashes: string[]; outcome?: undefined } | DeployResult;

/** A file to deploy: its path inside the site, and its SHA-256 once read. */
interface SiteFile {
  path: string;
  file: File;
}

let deps: CanvasPageDeps;
let canvas: CanvasView | null = null;
/** userId → name (or email) of everyone on the canvas's list. */
let people = new Map<string, string>();

const enc = encodeURIComponent;
/** The canvas open on the page; the handlers below run only while one is. */
const shown = (): CanvasView => {
  if (!canvas) throw new Error('no canvas is open');
  return canvas;
};
const path = (suffix = '') => `/api/canvases/${enc(shown().id)}${suffix}`;

const showError = (id: string, res: ApiAnswer | null) => showErrorIn(id, res, deps.problem);
const form = (id: string) => byId(id, HTMLFormElement);
const tbody = (id: string) => find(byId(id), 'tbody', HTMLTableSectionElement);

const when = (ms: number) => new Date(ms).toLocaleString();
/** "2026-11" (a budget's month, UTC) as "November 2026". */
const monthWords = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });
/** `ms` as a datetime-local field holds it: the local date and time to the minute. */
function localInputValue(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

export async function openCanvasPage(id: string): Promise<void> {
  const res = await deps.api<CanvasView>('GET', `/api/canvases/${enc(id)}`);
  if (res.status !== 200) {
    toast(`Could not open the canvas: ${deps.problem(res)}`, 'error', 'canvas-open');
    location.hash = '#/';
    return;
  }
  clearToasts('canvas-open');
  if (canvas?.id !== res.data.id) {
    // Another canvas: nothing of the last one's deploy or key stays on screen.
    for (const id of ['cp-deploy-error', 'cp-deploy-output', 'cp-key']) byId(id).hidden = true;
    byId('cp-deploy-status').textContent = '';
    byId('cp-warnings').replaceChildren();
  }
  const c = (canvas = res.data);
  render();
  // Opened, or reopened after a deploy, a rollback or an unpublish: the frame shows what is live now.
  showPreview(c, true);
  showOwner(c);
  showDanger(c);
  showWelcome(c);
  loadPolicy();
  // Versions name who published them: the list's names come first.
  await Promise.all([
    loadMembers().then(loadVersions),
    loadFiles(),
    loadSwitches(),
    loadGallery(),
    loadUsage(),
    loadCanvasData(deps.api, path()),
    loadWebhooks(deps.api, path(), deps.problem),
    loadSubmissionMail(deps.api, deps.problem, c),
  ]);
  // Everything on the page is loaded (tests wait on this marker).
  buildSectionBar({
    nav: byId('cp-nav'),
    page: byId('canvas-page'),
    order: ['Overview', 'Deploys & versions', 'Sharing', 'Data', 'Runtime', 'Settings', 'Danger zone'],
    top: byId('cp-title'),
    live: c.url,
  });
  byId('canvas-page').dataset.ready = c.id;
}

function render(): void {
  const c = shown();
  byId('cp-title').textContent = c.title;
  byId('cp-id').textContent = c.id;
  const url = byId('cp-url', HTMLAnchorElement);
  url.href = c.url;
  url.textContent = c.url;
  byId('cp-edit', HTMLAnchorElement).href = `#/canvas/${enc(c.id)}/edit`;
  byId('cp-state').textContent = ` · ${summary(c)}`;
  const rename = form('cp-rename');
  field(rename, 'title').value = c.title;
  field(rename, 'slug').value = c.slug;
  for (const radio of accessRadios()) radio.checked = radio.value === c.accessMode;
  byId('cp-password-state').textContent = c.hasPassword ? 'A password is set.' : 'No password.';
  byId('cp-expiry-state').textContent = !c.expiresAt
    ? 'No expiry.'
    : c.expiresAt <= Date.now()
      ? `Sharing ended ${when(c.expiresAt)}: only you and its editors can open it.`
      : `Shared until ${when(c.expiresAt)}.`;
  // The field shows the expiry that is set, in the local time it is typed in.
  field(form('cp-expiry'), 'until').value = c.expiresAt ? localInputValue(c.expiresAt) : '';
  byId('cp-unpublish', HTMLButtonElement).disabled = c.publicationState !== 'published';
  markRuntime(c);
}

function accessRadios(): HTMLInputElement[] {
  return [...document.querySelectorAll('#cp-access input[name="access"]')].filter((r) => r instanceof HTMLInputElement);
}

async function patch(body: Record<string, unknown>, errorId: string): Promise<boolean> {
  const res = await deps.api<CanvasView>('PATCH', path(), body);
  if (res.status !== 200) {
    showError(errorId, res);
    return false;
  }
  showError(errorId, null);
  canvas = res.data;
  render();
  // A new slug moves the address: the frame follows it.
  showPreview(canvas, false);
  return true;
}

async function loadMembers(): Promise<void> {
  const res = await deps.api<{ members: Member[] }>('GET', path('/members'));
  const rows = tbody('cp-members');
  rows.replaceChildren();
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
      select.addEventListener('change', () => void putMember(m.email, select.value));
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
    rows.append(row);
  }
}

async function putMember(email: string, role: string): Promise<void> {
  const res = await deps.api('PUT', path('/members'), { email, role });
  if (res.status !== 200) return showError('cp-members-error', res);
  showError('cp-members-error', null);
  await loadMembers();
}

async function loadVersions(): Promise<void> {
  const res = await deps.api<{ versions: Version[] }>('GET', path('/versions'));
  const rows = tbody('cp-versions');
  rows.replaceChildren();
  if (res.status !== 200) return showError('cp-versions-error', res);
  // No versions: a sentence, not a table of bare headings.
  const none = res.data.versions.length === 0;
  byId('cp-versions').hidden = none;
  byId('cp-versions-none').hidden = !none;
  const live = res.data.versions.find((v) => v.current)?.number ?? 0;
  for (const v of res.data.versions) {
    const row = document.createElement('tr');
    const first = deps.cell(row, `${v.number}${v.current ? ' (live)' : ''}${v.preview ? ' · preview' : ''}`);
    if (v.warnings.length > 0) first.append(warningsOf(v.warnings));
    deps.cell(row, when(v.createdAt));
    deps.cell(row, versionSource(v.source));
    // The owner for deploy-key writes (spec); the person for deploys from the dashboard, the CLI or the editor.
    deps.cell(row, people.get(v.createdBy) || 'someone not on the list (an administrator?)');
    deps.cell(row, v.releaseId || '');
    deps.cell(row, `${fileWords(v.fileCount)}, ${bytes(v.totalBytes)}`).className = 'size';
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
          toast(
            v.number < live
              ? `Rolled back to version ${v.number}: visitors see it now.`
              : `Version ${v.number} is live: visitors see it now.`,
            'done',
            'versions',
          );
          await refresh();
        }),
      );
    }
    row.append(actions);
    if (v.current) row.className = 'live';
    rows.append(row);
  }
}

/** A version's deploy warnings, folded under their count. */
function warningsOf(warnings: string[]): HTMLDetailsElement {
  const details = document.createElement('details');
  details.className = 'version-warnings';
  const summary = document.createElement('summary');
  summary.textContent = warnings.length === 1 ? '1 deploy warning' : `${warnings.length} deploy warnings`;
  const list = document.createElement('ul');
  list.className = 'warnings';
  for (const w of warnings) {
    const li = document.createElement('li');
    li.textContent = w;
    list.append(li);
  }
  details.append(summary, list);
  return details;
}

async function loadFiles(): Promise<void> {
  const rows = tbody('cp-files');
  rows.replaceChildren();
  const published = shown().publicationState === 'published';
  byId('cp-files').hidden = !published;
  byId('cp-files-none').hidden = published;
  if (!published) return;
  const res = await deps.api<{ files: LiveFile[] }>('GET', path('/files'));
  if (res.status !== 200) return;
  for (const f of res.data.files) {
    const row = document.createElement('tr');
    // Served sandboxed (CSP sandbox): a file of the canvas cannot act as the dashboard.
    linkCell(row, path(`/files?path=${enc(f.path)}`), f.path, true);
    deps.cell(row, bytes(f.size)).className = 'size';
    deps.cell(row, f.mime);
    const hash = document.createElement('td');
    const code = document.createElement('code');
    code.textContent = f.hash.slice(0, 12);
    code.title = f.hash;
    hash.append(code);
    row.append(hash);
    rows.append(row);
  }
}

async function refresh(): Promise<void> {
  await openCanvasPage(shown().id);
  await deps.loadCanvases();
}

/** What the canvas uses against its quotas: KV keys, file bytes, this month's AI spend. */
async function loadUsage(): Promise<void> {
  const [usage, ai] = await Promise.all([deps.api<Usage>('GET', path('/usage')), deps.api<AiUsage>('GET', path('/ai-usage'))]);
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
    parts.push(`AI in ${monthWords(b.month)}: $${Number(b.spentUsd).toFixed(2)} of $${Number(b.capUsd).toFixed(2)}`);
  }
  byId('cp-usage').textContent = parts.join(' · ');
}

async function loadGallery(): Promise<void> {
  const res = await deps.api<Gallery>('GET', path('/gallery'));
  if (res.status !== 200) return showError('cp-gallery-error', res);
  const gallery = form('cp-gallery');
  field(gallery, 'listed').checked = res.data.listed;
  field(gallery, 'templatable').checked = res.data.templatable;
}

async function saveGallery(box: HTMLInputElement): Promise<void> {
  const res = await deps.api<Gallery>('PUT', path('/gallery'), { [box.name]: box.checked });
  if (res.status !== 200) {
    showError('cp-gallery-error', res);
    box.checked = !box.checked;
    return;
  }
  showError('cp-gallery-error', null);
  form('cp-gallery').dataset.saved = `${res.data.listed} ${res.data.templatable}`;
}

// Runtime settings ---------------------------------------------------------

const SWITCHES = [
  ['backend', 'Backend (everything below)'],
  ['kv', 'Key-value storage'],
  ['files', 'Files'],
  ['ai', 'AI'],
  ['realtime', 'Realtime'],
  ['authoring', 'Publishing canvases from its pages'],
] as const;

function why(state: CapabilityState | undefined): string {
  if (!state) return '';
  if (state.effective) return 'in effect';
  if (state.reason === 'backend_off') return 'off: the backend is off';
  if (state.reason === 'feature_off') return 'off';
  return `off: ${state.hint}`;
}

async function loadSwitches(): Promise<void> {
  const res = await deps.api<Capabilities>('GET', path('/capabilities'));
  const list = byId('cp-switches');
  list.replaceChildren();
  if (res.status !== 200) return showError('cp-runtime-error', res);
  const { switches, effective } = res.data;
  presets = res.data.presets;
  showPolicyForm();
  showPolicyMisses(res.data.unconfigured || []);
  for (const [name, label] of SWITCHES) {
    const li = document.createElement('li');
    li.dataset.capability = name;
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.checked = switches[name] === true;
    box.id = `cp-switch-${name}`;
    box.addEventListener('change', async () => {
      const done = await deps.api<CanvasView>('PATCH', path('/capabilities'), { [name]: box.checked });
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
  const c = shown();
  markRuntime(c);
  const audiences = form('cp-audiences');
  field(audiences, 'aiAudience', HTMLSelectElement).value = c.aiAudience;
  field(audiences, 'connectionsAudience', HTMLSelectElement).value = c.connectionsAudience;
}

/** The policy being edited (the form and the JSON show the same document) and what each preset grants. */
let policy: PolicyState = { doc: {} };
let presets: PresetRights | null = null;

const policyText = () => byId('cp-policy', HTMLTextAreaElement);

function policyJson(): void {
  policyText().value = Object.keys(policy.doc).length ? JSON.stringify(policy.doc, null, 2) : '';
}

function showPolicyForm(): void {
  renderPolicyForm(byId('cp-policy-form'), policy, presets, policyJson);
}

/** A JSON object (not an array or a scalar) as the form's document; null for anything else. */
function policyDoc(value: unknown): PolicyDoc | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
}

/**
 * JSON typed by hand becomes the form's document as soon as it parses as an
 * object (while typing, so the form never jumps under a click); saving
 * reports what does not parse.
 */
function policyFromJson(): void {
  const text = policyText().value.trim();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    return;
  }
  const doc = policyDoc(parsed);
  if (!doc) return;
  policy = { doc };
  showPolicyForm();
}

function loadPolicy(): void {
  const c = shown();
  policy = { doc: policyDoc(structuredClone(c.runtimePolicy)) ?? {} };
  policyJson();
  showPolicyForm();
  policyText().dataset.revision = c.runtimePolicyRevision ?? '';
  // The revision is the save's check against another person's change, not words for a person.
  byId('cp-policy-revision').textContent = c.runtimePolicyRevision ? 'A policy is in effect.' : 'No policy saved yet.';
  byId('cp-policy-conflict').hidden = true;
  showError('cp-policy-error', null);
}

async function savePolicy(): Promise<void> {
  const text = policyText().value.trim();
  let doc: unknown = null;
  if (text) {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      return showError('cp-policy-error', localRefusal(400, `not JSON: ${err instanceof Error ? err.message : String(err)}`));
    }
  }
  const expected = policyText().dataset.revision || null;
  const res = await deps.api<CanvasView>('PATCH', path('/capabilities'), { expectedRuntimePolicy: expected, runtimePolicy: doc });
  if (res.status === 409 && refusalCode(res) === 'POLICY_CONFLICT') {
    // Show the other change and let the person take it; their own edits stay in the editor until they do.
    const fresh = await deps.api<CanvasView>('GET', path());
    byId('cp-policy-theirs').textContent = fresh.status === 200 ? JSON.stringify(fresh.data.runtimePolicy, null, 2) : '';
    byId('cp-policy-conflict').hidden = false;
    if (fresh.status === 200) canvas = fresh.data;
    return;
  }
  if (res.status !== 200) return showError('cp-policy-error', res);
  canvas = res.data;
  loadPolicy();
  byId('cp-policy-revision').textContent = 'Saved: this policy is in effect now.';
}

// Deploys ------------------------------------------------------------------

async function sha256(blob: Blob): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', await blob.arrayBuffer());
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function progress(done: number, total: number, text: string): void {
  const bar = byId('cp-progress', HTMLProgressElement);
  bar.hidden = false;
  bar.max = Math.max(total, 1);
  bar.value = done;
  byId('cp-deploy-status').textContent = text;
}

/** The live version a refusal names (PUBLICATION_CHANGED and RELEASE_NOT_CURRENT carry `current: {version}`). */
function currentVersion(res: ApiAnswer): string {
  const d: unknown = res.data;
  if (typeof d !== 'object' || d === null || !('current' in d)) return '?';
  const current: unknown = d.current;
  return typeof current === 'object' && current !== null && 'version' in current ? String(current.version) : '?';
}

/** What a conflict or refusal means, in words, for the person who pressed the button. */
function deployProblem(res: ApiAnswer): string {
  const code = refusalCode(res);
  if (code === 'PUBLICATION_CHANGED' || code === 'RELEASE_NOT_CURRENT')
    return `Someone published this canvas meanwhile (now version ${currentVersion(res)}): nothing was changed. Reload and deploy again.`;
  return deps.problem(res);
}

/** The deploy's answer: what went live, or why nothing did. */
function finished(res: ApiAnswer<DeployResult>): void {
  if (res.status === 200) deployed(res.data);
  else refused(res);
}

function refused(res: ApiAnswer): void {
  // The reason stays by the drop zone (cp-deploy-error); an earlier deploy's success goes.
  clearToasts('deploy');
  byId('cp-deploy-output').hidden = true;
  byId('cp-progress').hidden = true;
  byId('cp-warnings').replaceChildren();
  byId('cp-deploy-status').textContent = '';
  const el = byId('cp-deploy-error');
  el.textContent = `Not published: ${deployProblem(res)}`;
  el.hidden = false;
}

function deployed(r: DeployResult): void {
  byId('cp-progress').hidden = true;
  const warnings = byId('cp-warnings');
  warnings.replaceChildren();
  byId('cp-deploy-error').hidden = true;
  byId('cp-deploy-output').hidden = true;
  byId('cp-deploy-status').textContent =
    r.outcome === 'already_current'
      ? `Already live: version ${r.version}.`
      : `Published version ${r.version}: ${fileWords(r.fileCount)}, ${bytes(r.totalBytes)}.`;
  toast(
    r.outcome === 'already_current' ? `Nothing new: version ${r.version} is already live.` : `Deployed version ${r.version}.`,
    'done',
    'deploy',
  );
  for (const w of r.warnings || []) {
    const li = document.createElement('li');
    li.textContent = w;
    warnings.append(li);
  }
}

/** The dropped project's build folder is already in hand: one click deploys its contents. */
function offerOutput(files: SiteFile[], output: string): void {
  const prefix = `${output}/`;
  const built = files.filter((f) => f.path.startsWith(prefix)).map((f) => ({ path: f.path.slice(prefix.length), file: f.file }));
  const button = byId('cp-deploy-output', HTMLButtonElement);
  button.textContent = `Deploy ${prefix} instead`;
  button.onclick = () => {
    button.hidden = true;
    void deployFiles(built);
  };
  button.hidden = false;
}

/** A folder: hash every file here, send only what the canvas lacks, then publish. */
async function deployFiles(files: SiteFile[]): Promise<void> {
  const entries = files.filter((f) => !f.path.split('/').some((part) => part.startsWith('.')));
  if (entries.length === 0) return refused(localRefusal(400, 'the folder holds no files to deploy (dotfiles are skipped)'));
  const paths = new Set(entries.map((f) => f.path));
  const project = nodeProjectFolder((p) => paths.has(p) || entries.some((f) => f.path.startsWith(`${p}/`)));
  if (project) {
    const next = project.output
      ? `its site is built into ${project.output}/: drop that folder instead`
      : 'build it first (npm run build), then drop the folder the build writes (often dist/ or build/)';
    refused(localRefusal(400, `this folder is ${project.reason}; ${next}`));
    if (project.output) offerOutput(entries, project.output);
    return;
  }
  const total = entries.reduce((n, f) => n + f.file.size, 0);
  const hashed: Array<SiteFile & { hash: string }> = [];
  let read = 0;
  for (const f of entries) {
    hashed.push({ ...f, hash: await sha256(f.file) });
    read += f.file.size;
    progress(read, total * 2, `Reading ${f.path}`);
  }
  const manifest = hashed.map((f) => ({ path: f.path, hash: f.hash, size: f.file.size }));
  const begun = await deps.api<UploadBegun>('POST', path('/uploads'), { manifest, expectedPublicationToken: shown().publicationToken });
  if (begun.status !== 200) return refused(begun);
  const session = begun.data;
  // The release is live already: the answer is the deploy's.
  if (session.outcome !== undefined) return deployed(session);
  const missing = new Set(session.missingHashes);
  const toSend = hashed.filter((f) => missing.delete(f.hash));
  const sendTotal = toSend.reduce((n, f) => n + f.file.size, 0);
  let sent = 0;
  for (const f of toSend) {
    progress(total + (sent / Math.max(sendTotal, 1)) * total, total * 2, `Sending ${f.path}`);
    const res = await fetch(path(`/uploads/${enc(session.uploadId)}/blobs/${f.hash}`), {
      method: 'PUT',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/octet-stream' },
      body: f.file,
    });
    if (res.status !== 204) {
      const text = await res.text().catch(() => '');
      return refused({ status: res.status, data: parseJson(text), text });
    }
    sent += f.file.size;
  }
  progress(total * 2, total * 2, 'Publishing…');
  finished(await deps.api<DeployResult>('POST', path(`/uploads/${enc(session.uploadId)}/finalize`), {}));
  await refresh();
}

/** A body as JSON, or null when it is not. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A ZIP: sent as it is, with upload progress. */
function deployZip(file: File): Promise<void> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', path(`/deploy?expectedPublicationToken=${enc(shown().publicationToken)}`));
    xhr.setRequestHeader('content-type', 'application/zip');
    // Read as the dashboard's client reads answers: the body as JSON, null when it is not.
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => progress(e.loaded, e.total || file.size, `Sending ${file.name}`);
    xhr.onload = async () => {
      const answer: ApiAnswer<DeployResult> = { status: xhr.status, data: xhr.response, text: '' };
      finished(answer);
      await refresh();
      resolve();
    };
    xhr.onerror = () => {
      refused(localRefusal(0, 'the upload did not reach the server'));
      resolve();
    };
    xhr.send(file);
  });
}

/** The files a drop holds, with their paths inside the dropped folder (the folder itself is not part of them). */
async function droppedFiles(items: DataTransferItemList): Promise<SiteFile[]> {
  const out: SiteFile[] = [];
  const isFile = (e: FileSystemEntry): e is FileSystemFileEntry => e.isFile;
  const isDirectory = (e: FileSystemEntry): e is FileSystemDirectoryEntry => e.isDirectory;
  const walk = (entry: FileSystemEntry, prefix: string): Promise<void> =>
    new Promise((resolve) => {
      if (isFile(entry))
        entry.file(
          (file) => {
            out.push({ path: prefix + file.name, file });
            resolve();
          },
          () => resolve(),
        );
      else if (isDirectory(entry)) {
        const reader = entry.createReader();
        const all: FileSystemEntry[] = [];
        const next = () =>
          reader.readEntries(
            async (batch) => {
              if (batch.length === 0) {
                for (const child of all) await walk(child, `${prefix}${entry.name}/`);
                resolve();
              } else {
                all.push(...batch);
                next();
              }
            },
            () => resolve(),
          );
        next();
      } else resolve();
    });
  const entries = [...items].map((i) => i.webkitGetAsEntry()).filter((e) => e !== null);
  for (const entry of entries) await walk(entry, '');
  // One dropped folder: its contents are the site.
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only?.isDirectory) {
    const strip = `${only.name}/`;
    for (const f of out) f.path = f.path.slice(strip.length);
  }
  return out;
}

/** The picked file list of `picker`, emptied so the same pick works again. */
function taken(picker: HTMLInputElement): File[] {
  const files = [...(picker.files ?? [])];
  picker.value = '';
  return files;
}

function wireDeploys(): void {
  const drop = byId('cp-drop');
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    if (!e.dataTransfer) return;
    const files = e.dataTransfer.files;
    const single = files.length === 1 ? files[0] : undefined;
    if (single && /\.zip$/i.test(single.name)) return deployZip(single);
    await deployFiles(await droppedFiles(e.dataTransfer.items));
  });
  const folder = byId('cp-folder', HTMLInputElement);
  folder.addEventListener('change', async () => {
    const files = taken(folder).map((file) => ({ path: file.webkitRelativePath.split('/').slice(1).join('/') || file.name, file }));
    await deployFiles(files);
  });
  const zip = byId('cp-zip', HTMLInputElement);
  zip.addEventListener('change', async () => {
    const [file] = taken(zip);
    if (file) await deployZip(file);
  });
}

// Wiring -------------------------------------------------------------------

/** A submit handler that keeps the page (the dashboard's forms are sent by script). */
function onSubmit(id: string, handle: (form: HTMLFormElement) => Promise<unknown>): void {
  const f = form(id);
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    void handle(f);
  });
}

function wire(): void {
  byId('cp-copy-url').addEventListener('click', () => void navigator.clipboard?.writeText(shown().url));
  onSubmit('cp-rename', async (rename) => {
    const c = shown();
    const body: { title?: string; slug?: string } = {};
    const title = field(rename, 'title').value.trim();
    const slug = field(rename, 'slug').value.trim();
    if (title !== c.title) body.title = title;
    if (slug !== c.slug) body.slug = slug;
    if (Object.keys(body).length === 0) return;
    if (await patch(body, 'cp-rename-error')) {
      const moved = shown().url;
      if (moved !== c.url) toast(`The canvas moved to ${moved}; the old address no longer answers.`, 'done', 'address');
      await deps.loadCanvases();
    }
  });
  for (const radio of accessRadios()) {
    radio.addEventListener('change', async () => {
      // Letting more people in is asked first (canvas-access.ts): nothing is sent until confirmed.
      if (!(await confirmAccess(shown(), radio.value, radio))) return render();
      if (!(await patch({ accessMode: radio.value }, 'cp-access-error'))) render();
    });
  }
  onSubmit('cp-password', async (f) => {
    const password = field(f, 'password').value;
    if (!password) return;
    if (await patch({ password }, 'cp-password-error')) {
      f.reset();
      toast('Password set: visitors now type it before the page opens.', 'done', 'password');
    }
  });
  byId('cp-password-clear').addEventListener('click', async () => {
    if (await patch({ password: null }, 'cp-password-error')) toast('Password removed.', 'done', 'password');
  });
  onSubmit('cp-expiry', async (f) => {
    const value = field(f, 'until').value;
    if (!value) return;
    const until = new Date(value).getTime();
    if (until <= Date.now()) {
      // A past time ends the sharing at once, silently: say how to do that on purpose instead.
      showError(
        'cp-expiry-error',
        localRefusal(400, 'That time has passed: pick a later one (to stop sharing now, choose Restricted above).'),
      );
      return;
    }
    if (await patch({ expiresAt: until }, 'cp-expiry-error')) toast(`Shared until ${new Date(until).toLocaleString()}.`, 'done', 'expiry');
  });
  byId('cp-expiry-clear').addEventListener('click', async () => {
    if (await patch({ expiresAt: null }, 'cp-expiry-error')) toast('The share no longer expires.', 'done', 'expiry');
  });
  onSubmit('cp-add-member', async (f) => {
    await putMember(field(f, 'email').value.trim(), field(f, 'role', HTMLSelectElement).value);
    if (byId('cp-members-error').hidden) f.reset();
  });
  // The panel opens here, below the Sharing section, not at the top of the page.
  const guests = byId('cp-guests');
  guests.addEventListener('click', () => void deps.openGuests(shown(), guests.parentElement ?? guests));
  byId('cp-unpublish').addEventListener('click', async () => {
    if (!confirm(`Take "${shown().title}" offline? Its versions are kept; making one live again brings it back (Restricted).`)) return;
    const res = await deps.api('POST', path('/unpublish'));
    if (res.status !== 200) return showError('cp-versions-error', res);
    showError('cp-versions-error', null);
    toast(`"${shown().title}" is offline: its versions are kept.`, 'done', 'versions');
    await refresh();
  });
  byId('cp-regenerate').addEventListener('click', async () => {
    if (!confirm('Make a new deploy key? The current one stops working at once (update your CI).')) return;
    const res = await deps.api<{ apiKey: string }>('POST', path('/regenerate-key'));
    if (res.status !== 200) return showError('cp-key-error', res);
    showError('cp-key-error', null);
    byId('cp-key-value').textContent = res.data.apiKey;
    byId('cp-key').hidden = false;
    toast('Key regenerated: the old one no longer works. Copy the new one below, it is shown only this once.', 'done', 'key');
  });
  byId('cp-copy-key').addEventListener('click', () => void navigator.clipboard?.writeText(byId('cp-key-value').textContent ?? ''));
  for (const name of ['aiAudience', 'connectionsAudience']) {
    const select = field(form('cp-audiences'), name, HTMLSelectElement);
    select.addEventListener('change', async () => {
      const res = await deps.api<CanvasView>('PATCH', path('/capabilities'), { [name]: select.value });
      if (res.status !== 200) return showError('cp-runtime-error', res);
      showError('cp-runtime-error', null);
      canvas = res.data;
      await loadSwitches();
    });
  }
  byId('cp-policy-save').addEventListener('click', () => void savePolicy());
  for (const box of form('cp-gallery').querySelectorAll('input')) box.addEventListener('change', () => void saveGallery(box));
  byId('cp-policy-reload').addEventListener('click', loadPolicy);
  policyText().addEventListener('input', policyFromJson);
  wireDeploys();
}

export function startCanvasPage(given: CanvasPageDeps): void {
  deps = given;
  wire();
  startOwner({ ...deps, reopen: openCanvasPage });
  startDanger({ ...deps, reopen: openCanvasPage });
  startSubmissionMail();
}

export function closeCanvasPage(): void {
  canvas = null;
}

// The audit log in sentences ("Ada Lovelace deployed version 2 of Team lunch
// poll (2 files, 167 B)"): one phrase per action the server records, with the
// person and canvas as they are called today (the server joins the names).
// An action without a phrase still reads as a sentence, with its raw name.
import type { AuditEntry } from '../../audit/entry.ts';
import { bytes as byteWords } from './ui.ts';
import { count } from './status-words.ts';

/** An entry's detail: metadata the server chose, read field by field. */
type Detail = Readonly<Record<string, unknown>>;

const plural = (n: unknown, one: string, many?: string) => count(Number(n), one, many);
const bytes = (n: unknown) => byteWords(Number(n));
/** A changed field in the words its form uses (the API's name for one without). */
const FIELD_WORDS: Readonly<Record<string, string>> = {
  // A canvas (canvas.update)
  title: 'title',
  slug: 'address',
  accessMode: 'sharing',
  password: 'password',
  expiresAt: 'share expiry',
  serviceWorkers: 'service worker permission',
  reason: 'reason',
  // What its pages may use (canvas.capabilities)
  backend: 'backend',
  kv: 'key-value storage',
  files: 'files',
  ai: 'AI',
  realtime: 'realtime',
  authoring: 'publishing from its pages',
  aiAudience: 'who may use AI',
  connectionsAudience: 'who may use Connections',
  guestAi: 'AI for guests',
  guestAiMonthlyUsd: "guests' monthly AI cap",
  runtimePolicy: 'runtime policy',
  // A person (user.update)
  active: 'access',
  canPublishPublic: 'right to publish Public links',
  orgId: 'home org',
  // The instance (settings.update)
  aiModels: 'AI models pages may use',
  aiPrices: 'AI prices',
  aiApiKey: 'AI provider key',
  aiUserDailyUsd: 'AI per person per day',
  aiCanvasMonthlyUsd: 'AI per canvas per month',
  publicLinks: 'Public link canvases allowed',
  filesBytesFile: 'file size limit',
  filesBytesCanvas: 'files per canvas',
  userCanvases: 'canvases per person',
  userStorageBytes: 'storage per person',
  userCanvasCreatesPerHour: 'new canvases per person per hour',
};
const fieldWords = (field: unknown) =>
  typeof field === 'string' && Object.hasOwn(FIELD_WORDS, field) ? FIELD_WORDS[field]! : String(field);
const list = (fields: unknown) => (Array.isArray(fields) && fields.length ? fields.map(fieldWords).join(', ') : 'settings');

/** What an export held: its kind in words, a collection by name. */
const EXPORT_KINDS: Readonly<Record<string, string>> = {
  kv: 'the shared keys',
  files: 'the list of files',
  'files.zip': 'the files',
  collection: 'the collection',
  submissions: 'the submissions',
};
const formatWords = (format: unknown) => (format === 'zip' ? 'a ZIP' : String(format).toUpperCase());
const exported = (d: Detail) => {
  const kind = typeof d.kind === 'string' && Object.hasOwn(EXPORT_KINDS, d.kind) ? EXPORT_KINDS[d.kind]! : String(d.kind);
  return d.name ? `${kind} "${d.name}"` : kind;
};

/** Each action's predicate: `d` is the entry's detail (metadata only), `c` the canvas's name. */
const PHRASES: Readonly<Record<string, (d: Detail, c: string) => string>> = {
  'canvas.create': (_, c) => `created ${c}`,
  'canvas.update': (d, c) => `changed the ${list(d.fields)} of ${c}`,
  'canvas.deploy': (d, c) =>
    `${d.preview ? 'deployed a preview, version' : 'deployed version'} ${d.version} of ${c} (${plural(d.fileCount, 'file')}, ${bytes(d.totalBytes)}${d.releaseId ? `, release ${d.releaseId}` : ''})`,
  'canvas.rollback': (d, c) => `made version ${d.version} of ${c} live${d.fromDraft ? ' from the editor' : ''}`,
  'canvas.unpublish': (_, c) => `unpublished ${c}`,
  'canvas.archive': (_, c) => `archived ${c}`,
  'canvas.restore': (_, c) => `restored ${c} from the archive`,
  'canvas.delete': (_, c) => `deleted ${c}`,
  'canvas.disable': (_, c) => `disabled ${c}`,
  'canvas.enable': (_, c) => `enabled ${c} again`,
  'canvas.key.regenerate': (_, c) => `made a new deploy key for ${c}`,
  'canvas.capabilities': (d, c) => `changed what the pages of ${c} may use (${list(d.fields)})`,
  'canvas.member.put': (_, c) => `changed who may open ${c}`,
  'canvas.member.remove': (_, c) => `took someone off the people list of ${c}`,
  'canvas.gallery': (d, c) => `${d.listed ? 'listed' : 'unlisted'} ${c} in the gallery${d.templatable ? ', as a template' : ''}`,
  'canvas.from-template': (_, c) => `created ${c} from a template`,
  'guest.invite.created': (_, c) => `made a guest link for ${c}`,
  'guest.invite.revoked': (_, c) => `revoked a guest link of ${c}`,
  'guest.invite.used': (_, c) => `opened ${c} with a guest link`,
  'authoring.revoke': (_, c) => `revoked the publishing rights of ${c}'s pages`,
  'data.export': (d, c) => `exported ${exported(d)} of ${c} as ${formatWords(d.format)}`,
  'file.uploaded': (d, c) => `uploaded a file (${bytes(d.size)}) to ${c}`,
  'file.renamed': (_, c) => `renamed a file of ${c}`,
  'file.deleted': (d, c) => `deleted a file (${bytes(d.size)}) of ${c}`,
  'collection.record-deleted': (d, c) => `deleted a record of "${d.collection}" in ${c}`,
  'collection.cleared': (d, c) => `cleared ${plural(d.deleted, 'record')} of "${d.collection}" in ${c}`,
  'submission.saved': (d, c) => `${d.created ? 'submitted' : 'changed their entry'} to "${d.collection}" in ${c}`,
  'submission.withdrawn': (d, c) => `withdrew their entry from "${d.collection}" in ${c}`,
  'submission.removed': (d, c) => `removed an entry from "${d.collection}" in ${c}`,
  'submissions.cleared': (d, c) => `cleared ${plural(d.deleted, 'entry', 'entries')} of "${d.collection}" in ${c}`,
  'connection.create': (d) => `created the Connection "${d.name}"`,
  'connection.update': (d) => `changed the Connection "${d.name}"`,
  'connection.delete': (d) => `deleted the Connection "${d.name}"`,
  'connection.grant': (d, c) => `granted the Connection "${d.name}" to ${c}`,
  'connection.revoke': (d, c) => `took the Connection "${d.name}" from ${c}`,
  'token.create': (d) => `created a personal access token${d.via === 'cli' ? ' for the command line' : ''}`,
  'token.delete': () => 'revoked a personal access token',
  'token.used': () => 'used a personal access token',
  'user.update': (d) => `changed the ${list(d.fields)} of an account`,
  'settings.update': (d) => `changed the instance settings (${list(d.fields)})`,
};

const ACTOR_KINDS = new Map([
  ['key', 'A deploy key'],
  ['guest', 'A guest'],
  ['system', 'Easel'],
]);

/** Who did it: the person by name and email, else what kind of caller it was. */
function actorOf(entry: AuditEntry): string {
  if (entry.actor) return entry.actor.name ? `${entry.actor.name} (${entry.actor.email})` : entry.actor.email;
  return ACTOR_KINDS.get(entry.actorKind) || (entry.actorId ? `Someone no longer here (${entry.actorId})` : 'Someone');
}

function canvasOf(entry: AuditEntry): string {
  if (entry.canvas) return `"${entry.canvas.title || entry.canvas.slug}"`;
  return entry.canvasId ? `a deleted canvas (${entry.canvasId})` : 'the instance';
}

/** The whole entry as a sentence, for textContent. */
export type { AuditEntry };

export function sentence(entry: AuditEntry): string {
  const phrase = Object.hasOwn(PHRASES, entry.action) ? PHRASES[entry.action] : undefined;
  const detail: Detail = entry.detail && typeof entry.detail === 'object' ? Object.fromEntries(Object.entries(entry.detail)) : {};
  let predicate: string;
  try {
    predicate = phrase ? phrase(detail, canvasOf(entry)) : `did "${entry.action}" on ${canvasOf(entry)}`;
  } catch {
    predicate = `did "${entry.action}" on ${canvasOf(entry)}`;
  }
  const admin = entry.actorKind === 'admin' ? ' as an administrator' : '';
  return `${actorOf(entry)} ${predicate}${admin}.`;
}

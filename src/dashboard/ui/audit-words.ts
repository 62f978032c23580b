// The audit log in sentences ("Ada Lovelace deployed version 2 of Team lunch
// poll (2 files, 167 B)"): one phrase per action the server records, with the
// person and canvas as they are called today (the server joins the names).
// An action without a phrase still reads as a sentence, with its raw name.
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelUi } from './ui.ts';
import { easelWords } from './status-words.ts';

const plural = (n, one, many) => easelWords.count(n, one, many);
const bytes = (n) => easelUi.bytes(n);
const list = (fields) => (Array.isArray(fields) && fields.length ? fields.join(', ') : 'settings');

/** Each action's predicate: `d` is the entry's detail (metadata only), `c` the canvas's name. */
const PHRASES = {
  'canvas.create': (d, c) => `created ${c}`,
  'canvas.update': (d, c) => `changed the ${list(d.fields)} of ${c}`,
  'canvas.deploy': (d, c) =>
    `${d.preview ? 'deployed a preview, version' : 'deployed version'} ${d.version} of ${c} (${plural(d.fileCount, 'file')}, ${bytes(d.totalBytes)}${d.releaseId ? `, release ${d.releaseId}` : ''})`,
  'canvas.rollback': (d, c) => `made version ${d.version} of ${c} live${d.fromDraft ? ' from the editor' : ''}`,
  'canvas.unpublish': (d, c) => `unpublished ${c}`,
  'canvas.archive': (d, c) => `archived ${c}`,
  'canvas.restore': (d, c) => `restored ${c} from the archive`,
  'canvas.delete': (d, c) => `deleted ${c}`,
  'canvas.disable': (d, c) => `disabled ${c}`,
  'canvas.enable': (d, c) => `enabled ${c} again`,
  'canvas.key.regenerate': (d, c) => `made a new deploy key for ${c}`,
  'canvas.capabilities': (d, c) => `changed what the pages of ${c} may use (${list(d.fields)})`,
  'canvas.member.put': (d, c) => `changed who may open ${c}`,
  'canvas.member.remove': (d, c) => `took someone off the people list of ${c}`,
  'canvas.gallery': (d, c) => `${d.listed ? 'listed' : 'unlisted'} ${c} in the gallery${d.templatable ? ', as a template' : ''}`,
  'canvas.from-template': (d, c) => `created ${c} from a template`,
  'guest.invite.created': (d, c) => `made a guest link for ${c}`,
  'guest.invite.revoked': (d, c) => `revoked a guest link of ${c}`,
  'guest.invite.used': (d, c) => `opened ${c} with a guest link`,
  'authoring.revoke': (d, c) => `revoked the publishing rights of ${c}'s pages`,
  'data.export': (d, c) => `exported ${d.name ? `${d.kind} "${d.name}"` : d.kind} of ${c} as ${String(d.format).toUpperCase()}`,
  'file.uploaded': (d, c) => `uploaded a file (${bytes(d.size)}) to ${c}`,
  'file.renamed': (d, c) => `renamed a file of ${c}`,
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

const ACTOR_KINDS = {
  key: 'A deploy key',
  guest: 'A guest',
  system: 'Easel',
};

/** Who did it: the person by name and email, else what kind of caller it was. */
function actorOf(entry) {
  if (entry.actor) return entry.actor.name ? `${entry.actor.name} (${entry.actor.email})` : entry.actor.email;
  return ACTOR_KINDS[entry.actorKind] || (entry.actorId ? `Someone no longer here (${entry.actorId})` : 'Someone');
}

function canvasOf(entry) {
  if (entry.canvas) return `"${entry.canvas.title || entry.canvas.slug}"`;
  return entry.canvasId ? `a deleted canvas (${entry.canvasId})` : 'the instance';
}

/** The whole entry as a sentence, for textContent. */
function sentence(entry) {
  const phrase = PHRASES[entry.action];
  const detail = entry.detail && typeof entry.detail === 'object' ? entry.detail : {};
  let predicate;
  try {
    predicate = phrase ? phrase(detail, canvasOf(entry)) : `did "${entry.action}" on ${canvasOf(entry)}`;
  } catch {
    predicate = `did "${entry.action}" on ${canvasOf(entry)}`;
  }
  const admin = entry.actorKind === 'admin' ? ' as an administrator' : '';
  return `${actorOf(entry)} ${predicate}${admin}.`;
}

export const easelAuditWords = { sentence };

// The dashboard's one set of words for where a canvas stands and who can open
// it, and for counts: every place that shows a status uses these (the list,
// the canvas page, the administration), never the API's raw values.
import type { AccessMode, CanvasStatus } from '../../canvases/record.ts';
import type { VersionSource } from '../../deploy/version-store.ts';

/** What the words need of a canvas, as every canvas answer carries it. */
export interface CanvasStanding {
  status: CanvasStatus;
  publicationState: string;
  /** When its sharing ends (absent from a viewer's row: a viewer past it no longer sees the canvas). */
  expiresAt?: number | null;
}

const ACCESS_WORDS: Record<AccessMode, string> = { restricted: 'Restricted', whole_org: 'Whole organisation', public_link: 'Public link' };
const ACCESS = new Map<string, string>(Object.entries(ACCESS_WORDS));

/** "1 file", "2 files", "0 files" (`plural` when adding an s is wrong). */
export function count(n: number, one: string, plural = `${one}s`): string {
  return `${Number(n).toLocaleString()} ${n === 1 ? one : plural}`;
}

/**
 * Disabled (by an admin) and Archived come first: they stop a canvas whatever
 * its versions. A live canvas past its share expiry answers only its owner
 * and editors: it is not "Live" to anyone else.
 */
export function state(c: CanvasStanding): string {
  if (c.status === 'disabled') return 'Disabled';
  if (c.status === 'archived') return 'Archived';
  if (c.publicationState !== 'published') return 'Not published yet';
  return c.expiresAt != null && c.expiresAt <= Date.now() ? 'Expired' : 'Live';
}

/** Who can open it: Restricted, Whole organisation, Public link (an unknown mode as it is). */
export function access(mode: string | null | undefined): string {
  return mode ? (ACCESS.get(mode) ?? mode) : '';
}

/** The state and the access, as one line: "Live · Public link". */
export function summary(c: CanvasStanding & { accessMode: string }): string {
  return [state(c), access(c.accessMode)].filter(Boolean).join(' · ');
}

/** Who can open it, for the list: the access in words; Restricted says who is on its list (for those who manage it). */
export function sharedWith(c: { accessMode: string; people?: number }): string {
  if (c.accessMode !== 'restricted' || c.people === undefined) return access(c.accessMode);
  return c.people === 0 ? 'Only you' : `You and ${count(c.people, 'person', 'people')}`;
}

const SOURCE_WORDS: Record<VersionSource, string> = {
  api: 'ZIP upload',
  upload: 'File upload',
  editor: 'Browser editor',
  zip: 'ZIP',
  folder: 'Folder',
  paste: 'Pasted',
};
const SOURCE = new Map<string, string>(Object.entries(SOURCE_WORDS));

/** How a version was published, for the versions table ("staged upload" was the spec's word, not a person's); an unknown source as it is. */
export function versionSource(source: string): string {
  return SOURCE.get(source) ?? source;
}

export function files(n: number): string {
  return count(n, 'file');
}

/** The words as one object, as the views moved from plain scripts call them. */

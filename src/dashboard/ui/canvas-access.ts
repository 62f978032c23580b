// Widening who can open a canvas is asked first: switching General access to
// Public link (from anything) or to Whole organisation (from Restricted)
// opens a dialog that says what visitors will and will not get; nothing is
// sent until it is confirmed. While a canvas is a Public link, every runtime
// switch says it is not in effect for anonymous visitors (they get
// STATIC_ONLY). canvas-page.ts calls both.
import type { AccessMode } from '../../canvases/record.ts';
import type { CanvasView } from './canvas-deps.ts';
import { byId, find } from './elements.ts';
import { ask } from './ui.ts';

interface Widening {
  title(c: CanvasView): string;
  will: string[];
  wont: string[];
  confirm: string;
}

/** What each widening tells the person, in the dashboard's words. */
const WIDENINGS: Partial<Record<AccessMode, Widening>> = {
  public_link: {
    title: (c) => `Make "${c.title}" a Public link?`,
    will: [
      'Anyone with the link sees its pages, without signing in; links get forwarded, so treat it as public.',
      'A password and an expiry, when set, still apply.',
      'People on its list, and owners and editors, keep everything they have when they sign in.',
    ],
    wont: [
      'Anonymous visitors get the static pages only: key-value storage, files, AI, realtime and collections refuse them.',
      'Nobody without a role on it can deploy, change its settings or see its versions.',
    ],
    confirm: 'Make it a Public link',
  },
  whole_org: {
    title: (c) => `Open "${c.title}" to the whole organisation?`,
    will: [
      'Everyone who signs in to this Easel can open its pages.',
      'They use its runtime (storage, files, realtime, collections) as viewers, as far as its runtime policy allows.',
    ],
    wont: ['Nobody can open it without signing in.', 'Nobody without a role on it can deploy, change its settings or see its versions.'],
    confirm: 'Open it to the organisation',
  },
};

const MODES: readonly AccessMode[] = ['restricted', 'whole_org', 'public_link'];

/** Does going from `from` to `to` let more people in? */
function widens(from: AccessMode, to: AccessMode): boolean {
  return to === 'public_link' ? from !== 'public_link' : to === 'whole_org' && from === 'restricted';
}

function list(id: string, items: string[]): void {
  byId(id).replaceChildren(
    ...items.map((text) => {
      const li = document.createElement('li');
      li.textContent = text;
      return li;
    }),
  );
}

let wired = false;
function wire(): void {
  if (wired) return;
  wired = true;
  const dialog = byId('cp-access-dialog', HTMLDialogElement);
  find(dialog, '.dialog-cancel', HTMLButtonElement).addEventListener('click', () => dialog.close('cancel'));
}

/**
 * Resolves true when `to` may be applied: it does not widen access, or the
 * person confirmed in the dialog. Focus goes back to `from` (the radio).
 */
export async function confirmAccess(canvas: CanvasView, to: string, from: HTMLElement): Promise<boolean> {
  const mode = MODES.find((m) => m === to);
  const words = mode && widens(canvas.accessMode, mode) ? WIDENINGS[mode] : undefined;
  if (!words) return true;
  wire();
  byId('cp-access-dialog-title').textContent = words.title(canvas);
  list('cp-access-will', words.will);
  list('cp-access-wont', words.wont);
  byId('cp-access-confirm').textContent = words.confirm;
  return (await ask(byId('cp-access-dialog', HTMLDialogElement), from)) === 'confirm';
}

/** Every runtime switch says so while anonymous visitors cannot use it (Public link). */
export function markRuntime(canvas: CanvasView): void {
  const anonymous = canvas.accessMode === 'public_link';
  for (const li of document.querySelectorAll('#cp-switches li')) {
    let note = li.querySelector('.anon');
    if (!anonymous) {
      note?.remove();
      continue;
    }
    if (!note) {
      note = document.createElement('span');
      note.className = 'anon';
      li.append(note);
    }
    note.textContent = 'not in effect for anonymous visitors';
  }
}

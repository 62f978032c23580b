// A page's section bar (the canvas page's Overview, Deploys & versions, …;
// administration's People, Canvases, …): one button per group of headings
// that carry data-nav, only for the parts shown to this person, in the
// page's fixed order. It stays at the top while the page scrolls; a button
// scrolls to its group's first heading and moves focus there (the
// dashboard's #/ routes live in the hash, so no #anchors).
import { button } from './ui.ts';

export interface SectionBarOptions {
  nav: HTMLElement;
  page: HTMLElement;
  /** The groups' labels in the order shown (the first may be the page's own title, given as `top`). */
  order: readonly string[];
  top?: HTMLElement;
  /** An address shown beside the buttons ("Open the live page"). */
  live?: string | null;
}

/** Room kept between the bar and the heading it scrolled to. */
const BELOW_BAR_PX = 12;

function go(target: HTMLElement, nav: HTMLElement): void {
  if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
  // The bar stays on top: the heading stops below it, however many rows it wraps to (two or three on a phone).
  target.style.scrollMarginTop = `${nav.getBoundingClientRect().height + BELOW_BAR_PX}px`;
  target.scrollIntoView({ block: 'start' });
  target.focus({ preventScroll: true });
}

/** (Re)builds `nav` for the headings under `page` that carry data-nav. */
export function buildSectionBar({ nav, page, order, top, live }: SectionBarOptions): void {
  nav.replaceChildren();
  const groups = new Map<string, HTMLElement>();
  if (top && order[0] !== undefined) groups.set(order[0], top);
  for (const h of page.querySelectorAll<HTMLElement>('h3[data-nav]')) {
    const label = h.dataset.nav;
    // A part hidden from this person (the danger zone for an editor) gets no button.
    if (label === undefined || h.closest('[hidden]') || groups.has(label)) continue;
    groups.set(label, h);
  }
  const rank = (label: string) => (order.includes(label) ? order.indexOf(label) : order.length);
  const list = document.createElement('ul');
  for (const [label, heading] of [...groups].sort((a, b) => rank(a[0]) - rank(b[0]))) {
    const li = document.createElement('li');
    li.append(button(label, () => go(heading, nav)));
    list.append(li);
  }
  nav.append(list);
  if (live) {
    const a = document.createElement('a');
    a.href = live;
    a.target = '_blank';
    a.rel = 'noopener';
    a.className = 'section-bar-live';
    a.textContent = 'Open the live page';
    nav.append(a);
  }
  nav.hidden = false;
}

/** As the views moved from plain scripts call it. */

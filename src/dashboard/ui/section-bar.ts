// A page's section bar (the canvas page's Overview, Deploys & versions, …;
// administration's People, Canvases, …): one button per group of headings
// that carry data-nav, only for the parts shown to this person, in the
// page's fixed order. It stays at the top while the page scrolls; a button
// scrolls to its group's first heading and moves focus there (the
// dashboard's #/ routes live in the hash, so no #anchors).
// @ts-nocheck -- moved from plain JS; typed file by file next
import { easelUi } from './ui.ts';

export const easelSectionBar = (() => {
  function go(target) {
    if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
  }

  return {
    /**
     * (Re)builds `nav` for the headings under `page`; `order` lists the groups
     * (the first may be the page's own title, given as `top`); `live`, when
     * given, is an address shown beside the buttons.
     */
    build({ nav, page, order, top, live }) {
      nav.replaceChildren();
      const groups = new Map(top ? [[order[0], top]] : []);
      for (const h of page.querySelectorAll('h3[data-nav]')) {
        // A part hidden from this person (the danger zone for an editor) gets no button.
        if (h.closest('[hidden]') || groups.has(h.dataset.nav)) continue;
        groups.set(h.dataset.nav, h);
      }
      const rank = (label) => (order.includes(label) ? order.indexOf(label) : order.length);
      const list = document.createElement('ul');
      for (const [label, heading] of [...groups].sort((a, b) => rank(a[0]) - rank(b[0]))) {
        const li = document.createElement('li');
        li.append(easelUi.button(label, () => go(heading)));
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
    },
  };
})();

// The canvas page's section bar: Overview, Deploys & versions, Sharing,
// Runtime, Data, Settings, Danger zone — built from the headings that carry
// data-nav (index.html), only for the parts shown to this person. It stays
// at the top while the page scrolls, with the live address beside it; a
// section button scrolls to its first heading and moves focus there (the
// dashboard's #/ routes live in the hash, so no #anchors).
'use strict';

window.easelCanvasNav = (() => {
  const $ = (id) => document.getElementById(id);
  /** The bar's order, whatever order the parts have on the page. */
  const ORDER = ['Overview', 'Deploys & versions', 'Sharing', 'Data', 'Runtime', 'Settings', 'Danger zone'];

  function go(target) {
    if (!target.hasAttribute('tabindex')) target.tabIndex = -1;
    target.scrollIntoView({ block: 'start' });
    target.focus({ preventScroll: true });
  }

  return {
    /** (Re)builds the bar for the canvas now on the page; `url` is its live address. */
    build(url) {
      const nav = $('cp-nav');
      nav.replaceChildren();
      const groups = new Map([['Overview', $('cp-title')]]);
      for (const h of $('canvas-page').querySelectorAll('h3[data-nav]')) {
        // A part hidden from this person (the danger zone for an editor, data for a viewer) gets no button.
        if (h.closest('[hidden]') || groups.has(h.dataset.nav)) continue;
        groups.set(h.dataset.nav, h);
      }
      const list = document.createElement('ul');
      const rank = (label) => (ORDER.includes(label) ? ORDER.indexOf(label) : ORDER.length);
      for (const [label, heading] of [...groups].sort((a, b) => rank(a[0]) - rank(b[0]))) {
        const li = document.createElement('li');
        li.append(window.easelUi.button(label, () => go(heading)));
        list.append(li);
      }
      const live = document.createElement('a');
      live.href = url;
      live.target = '_blank';
      live.rel = 'noopener';
      live.className = 'cp-nav-live';
      live.textContent = 'Open the live page';
      nav.append(list, live);
      nav.hidden = false;
    },
  };
})();

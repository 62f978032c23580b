/**
 * On a phone a table's rows stand as cards, each cell under its column's name
 * (style.css, `td[data-label]::before`): a table five columns wide scrolled
 * sideways inside its box, and the columns past the first two (sharing, a
 * member's Remove button, a version's release) were off screen. The names are
 * the header's own words, copied to each cell's `data-label` whenever a
 * table's rows or header change, so every renderer keeps writing plain rows.
 */
export function labelTableCells(root: ParentNode = document): void {
  for (const table of root.querySelectorAll('table')) {
    labelCells(table);
    // Of attributes only `hidden` (a header shown or hidden): writing the labels never wakes the observer again.
    new MutationObserver(() => labelCells(table)).observe(table, {
      childList: true,
      subtree: true,
      characterData: true,
      attributeFilter: ['hidden'],
    });
  }
}

/**
 * Gives every body cell its column's header text (none for a column without one, such as a row's
 * buttons). A hidden header (administration's "Home org" without tenancy) has no cells under it.
 */
export function labelCells(table: HTMLTableElement): void {
  if (!table.classList.contains('keeps-columns')) keepTableRoles(table);
  const names = [...(table.tHead?.rows[0]?.cells ?? [])].filter((th) => !th.hidden).map((th) => th.textContent?.trim() ?? '');
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      let column = 0;
      for (const cell of row.cells) {
        // A cell spanning the whole row ("No versions yet") is a sentence, not a column's value.
        const name = cell.colSpan > 1 ? '' : (names[column] ?? '');
        if (name === '') cell.removeAttribute('data-label');
        else if (cell.dataset.label !== name) cell.dataset.label = name;
        column += cell.colSpan;
      }
    }
  }
}

/**
 * Safari drops a table's semantics once CSS changes its display (the phone
 * cards above): a screen reader there would hear loose text, not rows and
 * cells. Explicit roles keep them in every browser, and change nothing
 * where the native ones hold.
 */
function keepTableRoles(table: HTMLTableElement): void {
  setRole(table, 'table');
  for (const group of [table.tHead, ...table.tBodies, table.tFoot]) {
    if (!group) continue;
    setRole(group, 'rowgroup');
    for (const row of group.rows) {
      setRole(row, 'row');
      for (const cell of row.cells) {
        const header = cell.tagName === 'TH';
        setRole(cell, !header ? 'cell' : group === table.tHead ? 'columnheader' : cell.scope === 'row' ? 'rowheader' : 'cell');
      }
    }
  }
}

function setRole(element: Element, role: string): void {
  if (element.getAttribute('role') !== role) element.setAttribute('role', role);
}

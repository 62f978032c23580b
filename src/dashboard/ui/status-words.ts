// The dashboard's one set of words for where a canvas stands and who can open
// it, and for counts: every place that shows a status uses these (the list,
// the canvas page, the administration), never the API's raw values.
// @ts-nocheck -- moved from plain JS; typed file by file next
export const easelWords = (() => {
  const ACCESS = { restricted: 'Restricted', whole_org: 'Whole organisation', public_link: 'Public link' };

  /** "1 file", "2 files", "0 files" (`plural` when adding an s is wrong). */
  function count(n, one, plural = `${one}s`) {
    return `${Number(n).toLocaleString()} ${n === 1 ? one : plural}`;
  }

  return {
    /** Disabled (by an admin) and Archived come first: they stop a canvas whatever its versions. */
    state(c) {
      if (c.status === 'disabled') return 'Disabled';
      if (c.status === 'archived') return 'Archived';
      return c.publicationState === 'published' ? 'Live' : 'Not published yet';
    },
    /** Who can open it: Restricted, Whole organisation, Public link. */
    access(mode) {
      return ACCESS[mode] || mode || '';
    },
    /** The state and the access, as one line: "Live · Public link". */
    summary(c) {
      return [this.state(c), this.access(c.accessMode)].filter(Boolean).join(' · ');
    },
    /** Who can open it, for the list: the access in words; Restricted says who is on its list (for those who manage it). */
    sharedWith(c) {
      if (c.accessMode !== 'restricted' || c.people === undefined) return this.access(c.accessMode);
      return c.people === 0 ? 'Only you' : `You and ${count(c.people, 'person', 'people')}`;
    },
    count,
    files(n) {
      return count(n, 'file');
    },
  };
})();

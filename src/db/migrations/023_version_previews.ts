// Deploy previews (issue 40): a version deployed with `preview` is kept ready
// without going live. The mark stays after it is made live, so the version
// lists and the dashboard can say which versions began as previews, and
// pruning lets previews go before published versions.
export default `
ALTER TABLE versions ADD COLUMN preview INTEGER NOT NULL DEFAULT 0;
`;

// A canvas's pages may register a service worker only when its owner says so:
// a worker outlives unpublishing and lost access in the visitor's browser.
export default `
ALTER TABLE canvases ADD COLUMN service_workers INTEGER NOT NULL DEFAULT 0 CHECK (service_workers IN (0, 1));
`;

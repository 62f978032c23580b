// The gallery: besides gallery_listed (from the start), whether a listed
// canvas may be used as a template by the people who can open it.
export default `
ALTER TABLE canvases ADD COLUMN gallery_templatable INTEGER NOT NULL DEFAULT 0;
CREATE INDEX canvases_gallery ON canvases(gallery_listed) WHERE gallery_listed = 1;
`;

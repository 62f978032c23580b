// Runtime files bound to a file group (governed by its policy) or to a
// collection record (an attachment, governed by the record's rights). Unbound
// files keep their scope (shared or submission), as before.
export default `
ALTER TABLE files ADD COLUMN file_group TEXT;
ALTER TABLE files ADD COLUMN collection TEXT;
ALTER TABLE files ADD COLUMN record_id TEXT;
CREATE INDEX files_record ON files(canvas_id, collection, record_id) WHERE record_id IS NOT NULL;
`;

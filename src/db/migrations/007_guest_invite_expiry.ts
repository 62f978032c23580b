// Guest invites expire (CONTRACT §9, 2026-11-23): existing links get the
// default 14 days from their creation.
export default `
ALTER TABLE guest_invites ADD COLUMN expires_at INTEGER;
UPDATE guest_invites SET expires_at = created_at + 14 * 24 * 3600 * 1000 WHERE expires_at IS NULL;
`;

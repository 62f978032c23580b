// The provider groups (among EASEL_OIDC_ADMIN_GROUPS) a person belonged to at
// their last OIDC sign-in, as a JSON array: admin rights from a group claim
// follow the provider at each sign-in, and end at once when the setting no
// longer names the group.
export default `
ALTER TABLE users ADD COLUMN admin_groups TEXT NOT NULL DEFAULT '[]';
`;

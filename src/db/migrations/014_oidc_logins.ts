// OIDC sign-ins in flight: one row per authorization request, keyed by the
// hash of its `state`, bound to the browser that began it (the hash of its
// `easel_oidc` cookie), used once and short-lived.
export default `
CREATE TABLE oidc_logins (
  state_hash TEXT PRIMARY KEY,
  browser_hash TEXT NOT NULL,
  code_verifier TEXT NOT NULL,
  nonce TEXT NOT NULL,
  return_to TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`;

// A version's deploy warnings (src/deploy/warnings.ts), as a JSON array: what
// a deploy from CI or an agent said about it, shown later beside the version
// to the people who open the canvas's page. Null for versions from before
// (no warnings known) and for a deploy without any.
export default `
ALTER TABLE versions ADD COLUMN warnings TEXT;
`;

// The runtime API only checks the password gate; the form, the cookie format
// and its signing belong to page serving (src/serve/gate-pass.ts), so both
// sides accept exactly the same passes.
export { gatePassed } from '../serve/gate-pass.ts';

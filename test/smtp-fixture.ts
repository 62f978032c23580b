// A real SMTP relay on loopback (smtp-server): STARTTLS with a test
// certificate for `localhost`, AUTH PLAIN/LOGIN with one user, and every
// accepted message parsed (mailparser) for the test to read. `refuse(n)`
// makes the next n messages fail with a 451, as a relay that is down would.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { makeCert } from './connections-fixtures.ts';

export interface Relay {
  /** smtp://user:password@localhost:port */
  url: string;
  /** The CA to trust for its STARTTLS (its own certificate). */
  ca: string;
  messages: ParsedMail[];
  /** The next message that arrives (already arrived ones are in `messages`). */
  next(): Promise<ParsedMail>;
  refuse(count: number): void;
  /** Connections that authenticated with anything but the one user. */
  badLogins: number;
  stop(): Promise<void>;
}

export const RELAY_USER = 'relay-user';
export const RELAY_PASSWORD = 'relay-pw-s3cret';

export async function startRelay(): Promise<Relay> {
  const cert = makeCert('localhost');
  const messages: ParsedMail[] = [];
  const waiting: Array<(m: ParsedMail) => void> = [];
  let refusals = 0;
  const relay: Relay = {
    url: '',
    ca: cert.cert,
    messages,
    badLogins: 0,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    refuse: (count) => void (refusals = count),
    stop: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      cert.cleanup();
    },
  };
  const server = new SMTPServer({
    key: cert.key,
    cert: cert.cert,
    logger: false,
    authOptional: false,
    onAuth(auth, _session, done) {
      if (auth.username === RELAY_USER && auth.password === RELAY_PASSWORD) return done(null, { user: auth.username });
      relay.badLogins++;
      done(new Error('bad credentials'));
    },
    onData(stream, _session, done) {
      if (refusals > 0) {
        refusals--;
        stream.resume();
        stream.on('end', () => done(Object.assign(new Error('try again later'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then(
        (mail) => {
          messages.push(mail);
          done();
          waiting.shift()?.(mail);
        },
        (err) => done(err),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  relay.url = `smtp://${RELAY_USER}:${RELAY_PASSWORD}@localhost:${port}`;
  return relay;
}

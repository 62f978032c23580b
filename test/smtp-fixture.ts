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
  /** The first message, arrived or to come, that matches. */
  find(pred: (m: ParsedMail) => boolean): Promise<ParsedMail>;
  refuse(count: number): void;
  /**
   * Holds every message from now on once its data arrived, before answering
   * (a send in flight); `arrived` counts them, `release()` lets them through.
   */
  hold(): { arrived(n: number): Promise<void>; release(): void };
  /** Connections that authenticated with anything but the one user. */
  badLogins: number;
  stop(): Promise<void>;
}

export const RELAY_USER = 'relay-user';
export const RELAY_PASSWORD = 'relay-pw-s3cret';

export interface RelayOptions {
  /** No STARTTLS offered, AUTH over the plain connection (a relay on the same host; for a spawned server that cannot be given the test CA). */
  plain?: boolean;
}

export async function startRelay(options: RelayOptions = {}): Promise<Relay> {
  const cert = makeCert('localhost');
  const messages: ParsedMail[] = [];
  const waiting: Array<(m: ParsedMail) => void> = [];
  let refusals = 0;
  let held: { count: number; waiters: Array<{ n: number; resolve(): void }>; gate: Promise<void>; open(): void } | null = null;
  const relay: Relay = {
    url: '',
    ca: cert.cert,
    messages,
    badLogins: 0,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    async find(pred) {
      for (;;) {
        const found = messages.find(pred);
        if (found) return found;
        await relay.next();
      }
    },
    refuse: (count) => void (refusals = count),
    hold() {
      const gate = Promise.withResolvers<void>();
      const h = { count: 0, waiters: [] as Array<{ n: number; resolve(): void }>, gate: gate.promise, open: () => gate.resolve() };
      held = h;
      return {
        arrived: (n) => (h.count >= n ? Promise.resolve() : new Promise<void>((resolve) => h.waiters.push({ n, resolve }))),
        release: () => {
          if (held === h) held = null;
          h.open();
        },
      };
    },
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
    hideSTARTTLS: options.plain === true,
    allowInsecureAuth: options.plain === true,
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
      const h = held;
      simpleParser(stream).then(
        async (mail) => {
          if (h) {
            h.count++;
            for (const w of h.waiters.filter((w) => h.count >= w.n)) w.resolve();
            await h.gate;
          }
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

// What the test suite's real servers (Postgres, Redis) share: a free
// loopback port, and waiting for the line a server prints once it is ready.

/** Resolves once `stream` carried `marker`; keeps draining it after (a full pipe would block the server). */
export async function readyLine(stream: ReadableStream<Uint8Array>, marker: string, name: string): Promise<void> {
  let text = '';
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${name} exited before it was ready:\n${text}`);
    text += decoder.decode(value, { stream: true });
    if (text.includes(marker)) break;
  }
  void (async () => {
    while (!(await reader.read()).done);
  })();
}

export async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

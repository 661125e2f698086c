// Slow and idle clients cannot hold the server: a request's headers and the whole request must arrive
// within HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS, an idle kept-alive connection is closed after
// KEEP_ALIVE_TIMEOUT_MS, and connections past MAX_CONNECTIONS are dropped as they open.
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CapturedLog, captureLog } from '../support/log-capture.js';
import { openSocket, parseReply, type RawReply } from '../support/raw-http.js';
import { bearer, post, startService, type TestServer } from '../support/server.js';

const HELD = 500;

interface Held {
  socket: Socket;
  /** Resolves with what the server wrote once it has closed the connection. */
  closed: Promise<RawReply>;
}

async function hold(port: number, firstBytes: string): Promise<Held> {
  const socket = await openSocket(port);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<RawReply>((done) => socket.once('close', () => done(parseReply(Buffer.concat(chunks).toString('utf8')))));
  socket.write(firstBytes);
  return { socket, closed };
}

describe('HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS', () => {
  let server: TestServer;
  let captured: CapturedLog;
  beforeAll(async () => {
    captured = captureLog();
    server = await startService({ env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '1500' }, compose: { log: captured.log } });
    captured.clear();
  });
  afterAll(() => server.close());

  it(`${HELD} connections stopped half-way through their headers: a verify is still answered, and each of them is closed with a 408`, async () => {
    const { keys } = await server.createProject({ name: 'slow-clients' });
    // Half stop inside the request line, half inside a header.
    const partial = (i: number) => (i % 2 === 0 ? 'POST /v1/public/ver' : 'POST /v1/public/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const held = await Promise.all(Array.from({ length: HELD }, (_, i) => hold(server.port, partial(i))));
    const verify = await post(server.url, '/v1/public/verify', { email_address: 'a@example.com' }, bearer(keys.access_token));
    expect(verify.status).toBe(200);
    expect(verify.body.action).toBe('allow');

    const replies = await Promise.all(held.map((h) => h.closed));
    expect(replies.map((r) => r.status)).toEqual(new Array(HELD).fill(408));
    const [first] = replies;
    expect(first?.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(first?.body ?? '')).toEqual({
      code: 408,
      error: 'request timeout: the request was not received in time',
      id: expect.any(String),
      status: false,
    });
    expect(captured.above('info')).toEqual([]);
  }, 60_000);

  it('a request whose body stops arriving is answered 408 and closed', async () => {
    const slow = await hold(
      server.port,
      'POST /v1/public/ip HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    const reply = await slow.closed;
    expect(reply.status).toBe(408);
    expect(captured.above('info')).toEqual([]);
  }, 30_000);
});

describe('KEEP_ALIVE_TIMEOUT_MS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { KEEP_ALIVE_TIMEOUT_MS: '1000' } });
  });
  afterAll(() => server.close());

  it('announces the timeout and closes an idle kept-alive connection after it', async () => {
    const idle = await hold(server.port, 'POST /v1/public/ip HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}');
    const reply = await idle.closed;
    expect(reply.status).toBe(200);
    expect(reply.headers['keep-alive']).toBe('timeout=1');
    expect(JSON.parse(reply.body)).toEqual({ ipv4_address: '127.0.0.1', ipv6_address: null });
  }, 30_000);
});

describe('MAX_CONNECTIONS', () => {
  const MAX = 20;
  let server: TestServer;
  beforeAll(async () => {
    server = await startService({ env: { MAX_CONNECTIONS: String(MAX) } });
  });
  afterAll(() => server.close());

  const openConnections = () => new Promise<number>((done, fail) => server.server.getConnections((error, count) => (error ? fail(error) : done(count))));

  it(`drops connection ${MAX + 1} as it opens, and serves again once the others have closed`, async () => {
    const held: Held[] = [];
    for (let i = 0; i < MAX; i++) held.push(await hold(server.port, ''));
    const over = await hold(server.port, 'POST /v1/public/ip HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}');
    const dropped = await over.closed;
    expect(dropped.status).toBe(0);
    expect(dropped.body).toBe('');

    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await expect.poll(openConnections).toBe(0);
    const res = await post(server.url, '/v1/public/ip');
    expect(res.status).toBe(200);
  }, 30_000);
});

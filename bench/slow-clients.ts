// Slow clients (issue 10, point 2): the service with its default limits, verify's latency alone, then
// while BENCH_HELD connections (default 5,000) have each sent half a request's headers and stopped, and
// how long the service takes to close all of them (HEADERS_TIMEOUT_MS is 10 s). The held sockets are
// idle once written, so they share this process with the service without costing it CPU.
//   npx tsc -p tsconfig.json && node dist/bench/slow-clients.js
import { connect, type Socket } from 'node:net';
import { bearer, post, startService } from '../test/support/server.js';

const HELD = Number(process.env.BENCH_HELD ?? 5000);
const SAMPLES = 300;

async function verifyLatencies(url: string, token: string): Promise<{ p50_ms: number; p99_ms: number; non_200: number }> {
  const ms: number[] = [];
  let non200 = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const res = await post(url, '/v1/public/verify', { email_address: `user.${i}@example.com`, ipv4_address: '198.51.100.7' }, bearer(token));
    ms.push(performance.now() - started);
    if (res.status !== 200) non200 += 1;
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => Math.round((ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? 0) * 100) / 100;
  return { p50_ms: at(0.5), p99_ms: at(0.99), non_200: non200 };
}

function holdHalfOpen(port: number): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST /v1/public/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
      // Read (and drop) the 408: a paused socket never sees the server's close.
      socket.resume();
      done({ socket, closed: new Promise((closed) => socket.once('close', () => closed())) });
    });
    socket.on('error', fail);
  });
}

async function main(): Promise<void> {
  const server = await startService();
  try {
    const { keys } = await server.createProject({ name: 'slow-clients' });
    await verifyLatencies(server.url, keys.access_token);
    const alone = await verifyLatencies(server.url, keys.access_token);
    const held = [];
    for (let i = 0; i < HELD; i += 500) held.push(...(await Promise.all(Array.from({ length: Math.min(500, HELD - i) }, () => holdHalfOpen(server.port)))));
    const heldAt = performance.now();
    const meanwhile = await verifyLatencies(server.url, keys.access_token);
    // Counted after the samples: the held connections were all open while they ran.
    const openAfter = await new Promise<number>((done, fail) => server.server.getConnections((error, count) => (error ? fail(error) : done(count))));
    await Promise.all(held.map((h) => h.closed));
    const results = {
      held: HELD,
      verify_alone: alone,
      verify_while_held: meanwhile,
      connections_open_after_the_samples: openAfter,
      seconds_until_all_held_closed: Math.round((performance.now() - heldAt) / 100) / 10,
      headers_timeout_ms: server.service.config.server.headersTimeoutMs,
    };
    console.log(JSON.stringify(results, null, 2));
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(`slow-clients bench failed: ${(error as Error).message}`);
  process.exitCode = 1;
});

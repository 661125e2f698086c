// A redis-server of the test's own on an ephemeral port, without persistence (as a cache usually runs), that
// the test can freeze (SIGSTOP: it holds its connections and answers nothing, as behind a partition), thaw
// (SIGCONT), kill (SIGKILL) and start again on the same port, empty.
//
//   const redis = await startRedisServer();
//   … REDIS_URL: redis.url …
//   redis.freeze(); … redis.thaw();
//   await redis.restart();            // killed, then a new empty one on the same port
//   await redis.stats();              // INFO commandstats: calls per command since the last resetStats()
//   await redis.stop();
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import { Redis } from 'ioredis';

export interface RedisServer {
  port: number;
  url: string;
  freeze(): void;
  thaw(): void;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
  /** Killed if running, then started again on the same port, empty. */
  restart(): Promise<void>;
  /** Calls per command (lower case, e.g. `evalsha`) since the server started or resetStats(). */
  stats(): Promise<Record<string, number>>;
  resetStats(): Promise<void>;
  /** A client of the test's own (not the service's), for looking at keys. */
  client(): Redis;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function launch(port: number): Promise<ChildProcess> {
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within ${START_TIMEOUT_MS} ms:\n${text}`)), START_TIMEOUT_MS);
    proc.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      if (text.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(proc);
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}) before it was ready:\n${text}`));
    });
  });
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let proc: ChildProcess | null = await launch(port);
  const clients: Redis[] = [];
  const client = () => {
    const c = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, lazyConnect: false });
    c.on('error', () => undefined);
    clients.push(c);
    return c;
  };
  let admin: Redis | null = null;
  const adminClient = () => {
    admin ??= client();
    return admin;
  };
  const kill = async () => {
    const running = proc;
    proc = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = once(running, 'exit');
    running.kill('SIGKILL');
    await exited;
  };
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    freeze: () => proc?.kill('SIGSTOP'),
    thaw: () => proc?.kill('SIGCONT'),
    kill,
    async restart() {
      await kill();
      proc = await launch(port);
    },
    async stats() {
      const text = String(await adminClient().info('commandstats'));
      const calls: Record<string, number> = {};
      for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls[match[1] as string] = Number(match[2]);
      return calls;
    },
    async resetStats() {
      await adminClient().config('RESETSTAT');
    },
    client,
    async stop() {
      for (const c of clients) c.disconnect();
      proc?.kill('SIGCONT');
      await kill();
    },
  };
}

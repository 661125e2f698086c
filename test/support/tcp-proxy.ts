// A TCP proxy in front of a real server (the machine's PostgreSQL) that a test can cut and restore, to
// stand for a database that goes away and comes back without stopping the one other test runs share.
//
//   const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
//   … DATABASE_URL=postgres://postgres@127.0.0.1:${proxy.port}/test …
//   await proxy.cut();      // every connection reset, nothing listening: ECONNREFUSED
//   await proxy.restore();  // listening again on the same port
//   await proxy.close();
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  /** Destroys every proxied connection and stops listening. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const server: Server = createServer((client) => {
    const upstream = createConnection(target);
    track(client);
    track(upstream);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as { port: number };
  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    port,
    cut,
    restore: () => listen(port),
    close: async () => {
      if (server.listening) await cut();
    },
  };
}

// Keep-alive HTTP/1.1 connections for the open-loop driver (bench/open-loop.ts), on node:net. The driver shares
// the machine's cores with the service it measures, so what it costs per request is taken from the service:
// node:http's client (an Agent, a ClientRequest and an IncomingMessage with their streams and events per
// request) cost the bench process about 240 µs of CPU per request at 1,000 verifies a second, a fifth of what
// the service and the driver used together. Here a request is one write of bytes built from a head made once,
// and an answer is read for its status and its length (Content-Length, or chunked), nothing more.
//
// One request at a time per connection. A request takes the connection that has been free the longest (FIFO,
// so every connection carries a share and none idles until the server's keep-alive timeout closes it); with
// none free it opens one while fewer than `max` are open, and otherwise waits for the first one freed.
import { connect, type Socket } from 'node:net';

export interface Exchange {
  /** The whole request: head and body. */
  bytes: string;
  /** It has a connection and is being written: the driver's "sent" time. */
  onSocket(): void;
  /** Its answer has been read to the end. */
  onAnswer(status: number): void;
  /** Its connection failed or closed before the answer's end. */
  onError(error: Error): void;
}

/** A request's bytes: the head (method, path, host and `headers`) made once per path, the length and body per request. */
export function requestHead(method: string, path: string, host: string, headers: Readonly<Record<string, string>>): string {
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${host}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n`;
}

export function requestBytes(head: string, body: string): string {
  return `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

/** How far an answer has been read: its head's end and what its body needs; `done` with the offset after it. */
type Progress = { done: false } | { done: true; status: number; end: number; close: boolean };

/** Reads one HTTP/1.1 answer from the start of `data` (a HEAD-less exchange: every answer has a body or a length of 0). */
export function readAnswer(data: Buffer): Progress {
  const headEnd = data.indexOf(HEAD_END);
  if (headEnd < 0) return { done: false };
  const head = data.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  let length: number | null = null;
  let chunked = false;
  let close = head.startsWith('HTTP/1.0');
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    if (name === 'content-length') length = Number(value);
    else if (name === 'transfer-encoding') chunked = value.includes('chunked');
    else if (name === 'connection') close = value === 'close';
  }
  let at = headEnd + HEAD_END.length;
  // 1xx, 204 and 304 answers have no body.
  if (status < 200 || status === 204 || status === 304) return { done: true, status, end: at, close };
  if (chunked) {
    for (;;) {
      const lineEnd = data.indexOf(CRLF, at);
      if (lineEnd < 0) return { done: false };
      const size = Number.parseInt(data.toString('latin1', at, lineEnd), 16);
      if (size === 0) {
        // No trailers from the servers measured here: the last chunk's line, then an empty line.
        if (data.length < lineEnd + 4) return { done: false };
        return { done: true, status, end: lineEnd + 4, close };
      }
      at = lineEnd + 2 + size + 2;
      if (data.length < at) return { done: false };
    }
  }
  if (length === null) return { done: false }; // to the connection's end: never from the servers measured here
  return data.length >= at + length ? { done: true, status, end: at + length, close } : { done: false };
}

class Connection {
  private readonly socket: Socket;
  private received: Buffer = Buffer.alloc(0);
  private exchange: Exchange | null = null;
  private connected = false;
  closed = false;

  constructor(
    host: string,
    port: number,
    private readonly pool: ConnectionPool,
  ) {
    this.socket = connect({ host, port, noDelay: true });
    this.socket.on('connect', () => {
      this.connected = true;
      this.pool.ready(this);
    });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('the connection closed before the answer')));
  }

  send(exchange: Exchange): void {
    this.exchange = exchange;
    exchange.onSocket();
    this.socket.write(exchange.bytes);
  }

  private read(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    const progress = readAnswer(this.received);
    if (!progress.done) return;
    this.received = this.received.subarray(progress.end);
    const exchange = this.exchange;
    this.exchange = null;
    if (progress.close) this.end();
    exchange?.onAnswer(progress.status);
    if (!progress.close) this.pool.ready(this);
  }

  private fail(error: Error): void {
    if (this.closed) return;
    const exchange = this.exchange;
    this.exchange = null;
    // A connection that never opened fails the request it was opened for, rather than being opened again for it.
    if (!this.connected) this.pool.refused(error);
    this.end();
    exchange?.onError(error);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.destroy();
    this.pool.gone(this);
  }
}

export class ConnectionPool {
  private readonly all = new Set<Connection>();
  /** Free connections, the one free the longest first (from `freeFrom`). */
  private free: Connection[] = [];
  private freeFrom = 0;
  /** Requests waiting for a connection, the first due first (from `waitingFrom`). */
  private waiting: Exchange[] = [];
  private waitingFrom = 0;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly max: number,
  ) {}

  /** Connections open or opening now. */
  get size(): number {
    return this.all.size;
  }

  /** Sends `exchange` on the connection free the longest, on a new one, or on the first one freed. */
  request(exchange: Exchange): void {
    const connection = this.takeFree();
    if (connection) {
      connection.send(exchange);
      return;
    }
    this.waiting.push(exchange);
    if (this.all.size < this.max) this.all.add(new Connection(this.host, this.port, this));
  }

  /** A connection opened or done with its answer: it takes the first waiting request, or joins the free ones. */
  ready(connection: Connection): void {
    const exchange = this.takeWaiting();
    if (exchange) connection.send(exchange);
    else this.free.push(connection);
  }

  /** A connection could not be opened: the first waiting request fails. */
  refused(error: Error): void {
    this.takeWaiting()?.onError(error);
  }

  gone(connection: Connection): void {
    this.all.delete(connection);
    const at = this.free.indexOf(connection, this.freeFrom);
    if (at >= 0) this.free.splice(at, 1);
    // Requests still waiting and room for a connection: open one in its place.
    if (this.waitingFrom < this.waiting.length && this.all.size < this.max) this.all.add(new Connection(this.host, this.port, this));
  }

  private takeFree(): Connection | undefined {
    if (this.freeFrom === this.free.length) return undefined;
    const connection = this.free[this.freeFrom++];
    if (this.freeFrom === this.free.length) {
      this.free = [];
      this.freeFrom = 0;
    } else if (this.freeFrom >= 1024) {
      this.free = this.free.slice(this.freeFrom);
      this.freeFrom = 0;
    }
    return connection;
  }

  private takeWaiting(): Exchange | undefined {
    if (this.waitingFrom === this.waiting.length) return undefined;
    const exchange = this.waiting[this.waitingFrom++];
    if (this.waitingFrom === this.waiting.length) {
      this.waiting = [];
      this.waitingFrom = 0;
    } else if (this.waitingFrom >= 1024) {
      this.waiting = this.waiting.slice(this.waitingFrom);
      this.waitingFrom = 0;
    }
    return exchange;
  }

  destroy(): void {
    for (const connection of [...this.all]) connection.end();
  }
}
